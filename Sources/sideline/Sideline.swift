import ArgumentParser

@main
struct Sideline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sideline",
        abstract: "A segmenting encoder and HLS origin server for live video on a venue LAN.",
        subcommands: [ServeCommand.self, EncodeCommand.self, PushCommand.self, MirrorCommand.self, ExportCommand.self, AdminCommand.self, SignCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
