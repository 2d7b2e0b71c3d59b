import Foundation
import Testing
@testable import RetentionTool
import SystemIO

/// A temporary tree of files for one test, removed at the end.
private struct Tree {
    let root: String
    init(_ files: [String: String]) throws {
        root = URL(fileURLWithPath: TemporaryFile.systemFolder).appendingPathComponent("plan-\(UUID().uuidString)").path
        for (path, text) in files {
            let full = root + "/" + path
            try FileIO.createDirectories((full as NSString).deletingLastPathComponent)
            try text.write(toFile: full, atomically: false, encoding: .utf8)
        }
    }
    func path(_ relative: String) -> String { root + "/" + relative }
    func remove() { try? FileIO.removeTree(root) }
}

@Suite("ThumbnailPlan: outputs planned before anything is written")
struct ThumbnailPlanTests {
    @Test("two folders with the same file name into one of them: refused, since it would replace an input")
    func folderOntoInputFolder() throws {
        let tree = try Tree(["fa/x.png": "a", "fb/x.png": "b"])
        defer { tree.remove() }
        let error = #expect(throws: ThumbnailPlan.Problem.self) {
            try ThumbnailPlan.jobs(inputs: [tree.path("fa"), tree.path("fb")], output: tree.path("fb"))
        }
        #expect(error == .wouldReplaceInput(input: tree.path("fa/x.png"), output: tree.path("fb/x.png"), replaced: tree.path("fb/x.png")))
        #expect(error?.description == "the thumbnail of \(tree.path("fa/x.png")) would replace the input \(tree.path("fb/x.png")); nothing was written; choose another output folder")
        #expect(try String(contentsOfFile: tree.path("fb/x.png"), encoding: .utf8) == "b")
    }

    @Test("a file input that is also another input's output is refused up front")
    func fileOntoInput() throws {
        let tree = try Tree(["a/x.png": "a", "out/x.png": "keep"])
        defer { tree.remove() }
        let error = #expect(throws: ThumbnailPlan.Problem.self) {
            try ThumbnailPlan.jobs(inputs: [tree.path("a/x.png"), tree.path("out/x.png")], output: tree.path("out"))
        }
        #expect(error == .wouldReplaceInput(input: tree.path("a/x.png"), output: tree.path("out/x.png"), replaced: tree.path("out/x.png")))
    }

    @Test("the same output reached through a different spelling of its folder is caught too")
    func replaceThroughAnotherSpelling() throws {
        let tree = try Tree(["in/x.png": "a"])
        defer { tree.remove() }
        let error = #expect(throws: ThumbnailPlan.Problem.self) {
            try ThumbnailPlan.jobs(inputs: [tree.path("in/x.png")], output: tree.path("in/../in/"))
        }
        #expect(error != nil)
        let single = #expect(throws: ThumbnailPlan.Problem.self) {
            try ThumbnailPlan.jobs(inputs: [tree.path("in/x.png")], output: tree.path("in/./x.png"))
        }
        #expect(single != nil)
    }

    @Test("two inputs with one output are refused, naming both")
    func sameOutput() throws {
        let tree = try Tree(["a/x.png": "a", "b/x.png": "b"])
        defer { tree.remove() }
        let error = #expect(throws: ThumbnailPlan.Problem.self) {
            try ThumbnailPlan.jobs(inputs: [tree.path("a/x.png"), tree.path("b/x.png")], output: tree.path("out"))
        }
        #expect(error == .sameOutput(first: tree.path("a/x.png"), second: tree.path("b/x.png"), output: tree.path("out/x.png")))
    }

    @Test("earlier thumbnails in an output folder inside the input folder are skipped, so a rerun works")
    func rerunIntoSubfolder() throws {
        let tree = try Tree(["photos/x.png": "a", "photos/sub/y.PNG": "b", "photos/thumbnails/x.png": "old"])
        defer { tree.remove() }
        let jobs = try ThumbnailPlan.jobs(inputs: [tree.path("photos")], output: tree.path("photos/thumbnails"))
        #expect(jobs == [ThumbnailTask(input: tree.path("photos/sub/y.PNG"), output: tree.path("photos/thumbnails/sub/y.PNG")),
                         ThumbnailTask(input: tree.path("photos/x.png"), output: tree.path("photos/thumbnails/x.png"))])
    }

    @Test("a single file may be written to a named .png; folders are created on demand")
    func singleFileAndFolders() throws {
        let tree = try Tree(["x.png": "a"])
        defer { tree.remove() }
        let jobs = try ThumbnailPlan.jobs(inputs: [tree.path("x.png")], output: tree.path("deep/er/t.png"))
        #expect(jobs == [ThumbnailTask(input: tree.path("x.png"), output: tree.path("deep/er/t.png"))])
        try ThumbnailPlan.createFolders(for: jobs)
        #expect(isDirectory(tree.path("deep/er")))
        try "file".write(toFile: tree.path("blocker"), atomically: false, encoding: .utf8)
        let error = #expect(throws: ThumbnailPlan.Problem.self) {
            try ThumbnailPlan.createFolders(for: [ThumbnailTask(input: tree.path("x.png"), output: tree.path("blocker/t/x.png"))])
        }
        #expect(error?.description == "cannot create the output folder \(tree.path("blocker/t")) (at \(tree.path("blocker"))): Not a directory")
    }
}

@Suite("ThumbnailSize: the -s box")
struct ThumbnailSizeTests {
    @Test("a side, or two sides with x or X; anything else, zero, or a side past the decode limit is refused")
    func parsing() {
        #expect(ThumbnailSize(parsing: "256") == ThumbnailSize(width: 256, height: 256))
        #expect(ThumbnailSize(parsing: "256x192") == ThumbnailSize(width: 256, height: 192))
        #expect(ThumbnailSize(parsing: "64X32") == ThumbnailSize(width: 64, height: 32))
        #expect(ThumbnailSize(parsing: "\(ThumbnailSize.maximum)")?.width == ThumbnailSize.maximum)
        for bad in ["", "0", "-5", "+5", "256x", "x256", "1x2x3", "2.5", "٣", "\(ThumbnailSize.maximum + 1)", "99999999999999999999"] {
            #expect(ThumbnailSize(parsing: bad) == nil, "\(bad)")
        }
    }
}
