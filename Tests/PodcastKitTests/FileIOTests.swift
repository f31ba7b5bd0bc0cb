import Foundation
import PodcastKit
import Testing

@Suite struct FileIOTests {
    @Test func relativeDirectoriesAreMadeUnderTheCurrentDirectory() throws {
        let name = ".build/fileio-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: name) }
        try FileIO.makeDirectory(name + "/a/b")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/" + name + "/a/b", isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(!FileManager.default.fileExists(atPath: "/" + name))
    }

    @Test func atomicWriterReplacesOnlyOnCommit() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "fileio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "f").path
        try Data("old".utf8).write(to: URL(filePath: path))
        do {
            let abandoned = try AtomicFileWriter(destination: path)
            Data("half".utf8).withUnsafeBytes { abandoned.write($0) }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        let writer = try AtomicFileWriter(destination: path)
        Data("new".utf8).withUnsafeBytes { writer.write($0) }
        try writer.commit()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["f"])
    }
}
