/// Ladders the end-to-end tests share: small, fast rungs so encoding never holds a test up.
enum TestLadders {
    /// Two rungs, so a test can see variants kept in step (a crash between two variants'
    /// writes, a mirror following both).
    static let twoRungs = """
        video:
          ladder:
            - {name: 360p, width: 640, height: 360, bitrate: 600k, preset: ultrafast, profile: main}
            - {name: 180p, width: 320, height: 180, bitrate: 200k, preset: ultrafast, profile: baseline}
        """
}
