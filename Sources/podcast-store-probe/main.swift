import PodcastKit
print("probe")
