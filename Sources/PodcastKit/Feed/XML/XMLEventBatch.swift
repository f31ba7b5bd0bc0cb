import CLibXML2

/// SAX events as libxml2 reported them, recorded to be handed to an `XMLEventHandler` later,
/// possibly on another thread: the parsing thread then only records, and what the events mean is
/// worked out beside it.
///
/// Names are libxml2's interned strings, which stay valid while the parser lives (a batch must be
/// replayed before that); attribute values and text are copied.
struct XMLEventBatch {
    private enum Event {
        case start(local: UnsafePointer<xmlChar>, namespace: FeedNamespace, attributes: Range<Int>)
        case end
        case text(Range<Int>)
    }

    /// One attribute of a start tag.
    struct Attribute {
        /// The local name, interned by libxml2.
        let local: UnsafePointer<xmlChar>
        let namespace: FeedNamespace
        /// Where the raw value is in the batch's bytes.
        let value: Range<Int>
    }

    private var events: [Event] = []
    private var attributes: [Attribute] = []
    private var bytes: [UInt8] = []

    var isEmpty: Bool { events.isEmpty }

    /// Records a start tag; `attributes` in libxml2's layout (five pointers each: local name,
    /// prefix, URI, value start, value end), their namespaces resolved by `namespace`.
    mutating func recordStart(
        local: UnsafePointer<xmlChar>, namespace: FeedNamespace,
        attributes pointers: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int,
        namespaceOf: (_ prefix: UnsafePointer<xmlChar>?, _ uri: UnsafePointer<xmlChar>?) -> FeedNamespace
    ) {
        let first = attributes.count
        if let pointers {
            for index in 0..<count {
                let base = pointers + index * 5
                guard let name = base[0], let start = base[3], let end = base[4] else { continue }
                let valueStart = bytes.count
                bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: end - start))
                let attributeNamespace = base[1] == nil && base[2] == nil ? FeedNamespace.none : namespaceOf(base[1], base[2])
                attributes.append(Attribute(local: name, namespace: attributeNamespace, value: valueStart..<bytes.count))
            }
        }
        events.append(.start(local: local, namespace: namespace, attributes: first..<attributes.count))
    }

    mutating func recordEnd() {
        events.append(.end)
    }

    mutating func recordText(_ text: UnsafeBufferPointer<UInt8>) {
        let start = bytes.count
        bytes.append(contentsOf: text)
        events.append(.text(start..<bytes.count))
    }

    /// Empties the batch, keeping its room for the next events.
    mutating func removeAll() {
        events.removeAll(keepingCapacity: true)
        attributes.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Hands the events to `handler`, in order.
    func replay(to handler: some XMLEventHandler) {
        attributes.withUnsafeBufferPointer { attributes in
            bytes.withUnsafeBufferPointer { bytes in
                for event in events {
                    switch event {
                    case .start(let local, let namespace, let range):
                        let name = XMLName(namespace: namespace, local: String(cString: local))
                        handler.didStartElement(
                            name, attributes: XMLAttributes(UnsafeBufferPointer(rebasing: attributes[range]), values: bytes))
                    case .end:
                        handler.didEndElement()
                    case .text(let range):
                        handler.didReceiveText(UnsafeBufferPointer(rebasing: bytes[range]))
                    }
                }
            }
        }
    }
}
