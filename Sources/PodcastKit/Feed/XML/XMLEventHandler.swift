/// Receives what `XMLPushParser` reads, in document order, during the `parse` call that reads it
/// and on the thread that made that call.
protocol XMLEventHandler {
    /// A start tag; `spelling` is its local name as written; `attributes` is valid only during the call.
    mutating func didStartElement(_ name: XMLName, spelling: String, attributes: XMLAttributes)
    /// The end tag of the innermost open element.
    mutating func didEndElement()
    /// Character data (text or CDATA), already decoded to UTF-8; valid only during the call.
    mutating func didReceiveText(_ text: UnsafeBufferPointer<UInt8>)
}
