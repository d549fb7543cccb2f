import HLSOrigin
import Metrics
import Prometheus

/// The process's metrics backend: swift-metrics exported in the Prometheus text format at
/// `GET /metrics`.
enum PrometheusExport {
    /// Installs the Prometheus backend for swift-metrics; call once, before any metric is made.
    static func bootstrap() -> MetricsExposition {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // swift-metrics labels from libraries (Hummingbird's "http.server.request.duration")
        // use dots, which the Prometheus format does not allow.
        factory.nameAndLabelSanitizer = { name, labels in
            (sanitize(name), labels.map { (sanitize($0.0), $0.1) })
        }
        MetricsSystem.bootstrap(factory)
        return MetricsExposition { registry.emitToBuffer() }
    }

    static func sanitize(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" ? $0 : "_" })
    }
}
