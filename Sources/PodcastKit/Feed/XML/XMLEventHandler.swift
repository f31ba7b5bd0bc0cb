/// Receives what `XMLPushParser` reads, in document order, replayed from recorded batches
/// (`XMLEventBatch`) on one thread at a time: the parsing thread or the relay's (`XMLEventRelay`).
protocol XMLEventHandler: AnyObject {
    /// A start tag; `attributes` is valid only during the call.
    func didStartElement(_ name: XMLName, attributes: XMLAttributes)
    /// The end tag of the innermost open element.
    func didEndElement()
    /// Character data (text or CDATA), already decoded to UTF-8; valid only during the call.
    func didReceiveText(_ text: UnsafeBufferPointer<UInt8>)
}
