import PodcastKit
