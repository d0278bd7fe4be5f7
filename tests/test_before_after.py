"""The before/after benchmark runner reads the same figures from both runs."""

from tests.benchmarks.before_after import figures, table


def test_figures_keep_numbers_and_leave_words_with_digits_in_the_shape():
    out = figures("as-of p50 0.098 ms, p99 4.3 ms\nimport: 20,000 rows in 10.3 s\nno number\n"
                  "as-of p50 9 ms, p99 9 ms\n")
    assert out == {"as-of p50 # ms, p99 # ms": [0.098, 4.3], "import: # rows in # s": [20000.0, 10.3],
                   "as-of p50 # ms, p99 # ms [#2]": [9.0, 9.0]}


def test_a_renamed_word_meets_the_new_line_and_the_table_gives_the_ratio():
    before = [figures("Store.as_of: 2.0 ms", {"Store.as_of": "store.facts.as_of"})]
    after = [figures("store.facts.as_of: 3.0 ms\nnew line 1\n")]
    assert table(before, after) == ["store.facts.as_of: # ms",
                                    "    #1: before 2  after 3  after/before 1.50x",
                                    "printed after only:", "    new line #"]
