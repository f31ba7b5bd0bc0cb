import CLibXML2
import PodcastText
import Synchronization

/// libxml2 entities for HTML's named characters (`&nbsp;`, `&eacute;`, …), which feeds use
/// without declaring them. Returned from the parser's getEntity callback as predefined entities,
/// libxml2 reports their text in place, in order, without an error.
///
/// Made once per name for the life of the process: libxml2 offers no public way to free a
/// standalone entity, and there are only a few hundred names.
enum HTMLEntityDeclarations {
    private static let entities = Mutex<[String: UnsafeMutablePointer<xmlEntity>]>([:])

    /// The entity for `name`, or nil when HTML has no character of that name.
    static func entity(named name: String) -> UnsafeMutablePointer<xmlEntity>? {
        entities.withLock { entities in
            if let entity = entities[name] { return entity }
            guard let text = HTMLEntities.character(named: name) else { return nil }
            guard let entity = xmlNewEntity(nil, name, Int32(XML_INTERNAL_PREDEFINED_ENTITY.rawValue), nil, nil, text)
            else { return nil }
            entities[name] = entity
            return entity
        }
    }
}
