// The origin's API speaks OriginConnections' types (`AdmissionControl` and its `Limits` go into
// `OriginServer.makeApplication`; a clip route closes its connection with `ResponseConnection`),
// so whoever serves the origin gets them with `import HLSOrigin`, as before they moved out.
@_exported import OriginConnections
