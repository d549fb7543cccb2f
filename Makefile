# Shortcuts for the two commands of the README (which work without make, too).
.PHONY: serve test build clean

serve:
	scripts/serve $(ARGS)

test:
	scripts/test

build:
	@scripts/ensure-deps.sh
	swift build

clean:
	rm -rf .build
