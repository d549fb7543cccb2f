# The two commands of the README. Each installs what is missing first.
.PHONY: serve test build release clean

# Serve Samples/sample.mp4 as a live camera on port 8080 (release build).
serve:
	@scripts/ensure-deps.sh
	swift build -c release --product sideline
	.build/release/sideline serve $(ARGS)

# The whole test suite: unit, integration (real FFmpeg on the sample) and end-to-end tests.
test:
	@scripts/ensure-deps.sh
	swift build --build-tests
	swift test --skip-build

build:
	@scripts/ensure-deps.sh
	swift build

clean:
	rm -rf .build
