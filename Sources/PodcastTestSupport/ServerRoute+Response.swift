extension ServerRoute {
    /// How deep handlers may return further handlers before the server gives up with 500; guards against a handler that returns itself.
    private static let handlerDepthLimit = 16

    /// The response this route gives to `request`, running handlers as needed.
    func response(to request: RecordedRequest) -> ServerResponse {
        var route = self
        for _ in 0..<Self.handlerDepthLimit {
            switch route.behaviour {
            case .handler(let respond):
                route = respond(request)
            case .content(let status, let headers, let body, let delivery):
                return .message(ResponseHead(status: status, fields: headers), .bytes(body[...]), delivery)
            case .chunked(let status, let headers, let chunks):
                return .message(ResponseHead(status: status, fields: headers), .chunks(chunks), .complete)
            case .file(let file):
                return file.response(to: request)
            case .gzip(let resource):
                return resource.response(to: request)
            case .noResponse:
                return .silent
            case .raw(let write):
                return .raw { try write(request, $0) }
            }
        }
        return .text(500, "handlers nested deeper than \(Self.handlerDepthLimit)\n")
    }
}
