import Foundation
import PodcastKit
import PodcastPlatform
import Testing

@Suite(.timeLimit(.minutes(5))) struct FileIOTests {
    @Test func relativeDirectoriesAreMadeUnderTheCurrentDirectory() throws {
        let name = ".build/fileio-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: name) }
        try FileIO.makeDirectory(name + "/a/b")
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/" + name + "/a/b", isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(!FileManager.default.fileExists(atPath: "/" + name))
    }

    /// Downloads skip their syncs on a file system in memory; anywhere else they must sync.
    @Test func fileSystemsInMemoryAreTold() throws {
        let mounts = try String(contentsOfFile: "/proc/mounts", encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ") }
        let shmType = mounts.first { $0.count > 2 && $0[1] == "/dev/shm" }.map { String($0[2]) }
        if let shmType {
            #expect(FileIO.isInMemory("/dev/shm") == (shmType == "tmpfs" || shmType == "ramfs"))
        }
        #expect(!FileIO.isInMemory("/proc"))
        #expect(!FileIO.isInMemory("/no/such/directory"))
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

    @Test func movingWithoutReplacingNeverOverwritesAFile() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "fileio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let partial = directory.appending(path: "a.part").path
        let taken = directory.appending(path: "taken.mp3").path
        let free = directory.appending(path: "free.mp3").path
        try Data("new".utf8).write(to: URL(filePath: partial))
        try Data("theirs".utf8).write(to: URL(filePath: taken))

        #expect(try FileIO.moveWithoutReplacing(partial, to: taken) == false)
        #expect(try String(contentsOfFile: taken, encoding: .utf8) == "theirs")
        #expect(try String(contentsOfFile: partial, encoding: .utf8) == "new")

        #expect(try FileIO.moveWithoutReplacing(partial, to: free) == true)
        #expect(try String(contentsOfFile: free, encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(throws: SystemError.self) { try FileIO.moveWithoutReplacing(partial, to: directory.appending(path: "x").path) }
    }
}
