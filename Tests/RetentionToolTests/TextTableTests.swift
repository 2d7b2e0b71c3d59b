import Testing
import RetentionTool

@Suite("Text tables")
struct TextTableTests {
    @Test("the first column is left-aligned, numbers right-aligned, short rows padded")
    func defaultAlignment() {
        #expect(TextTable.render(header: ["name", "n"], rows: [["a", "100"], ["bcdef"]]) == """
            name     n
            -----  ---
            a      100
            bcdef     \n
            """)
    }

    @Test("left-aligned text columns; a left-aligned last column leaves no trailing spaces")
    func leftAlignedColumns() {
        #expect(TextTable.render(header: ["strategy", "summary"], rows: [["tiered", "two LRUs"], ["decoded-lru", "one"]], leftAligned: 2) == """
            strategy     summary
            -----------  --------
            tiered       two LRUs
            decoded-lru  one

            """)
    }
}
