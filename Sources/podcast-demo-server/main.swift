import PodcastTestSupport
print("demo")
