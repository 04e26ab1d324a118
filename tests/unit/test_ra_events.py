"""lab/guest/ra_events.py: the documented page_cache_ra_pattern text parses, anything else on
a line of that event is an error naming the line, other events are ignored."""

import json
import os
import re
from pathlib import Path

import pytest

from guest import ra_events

REPO = Path(__file__).resolve().parents[2]

# The examples of Documentation/trace/events-readahead.rst (patch 3): trace-cmd report, then
# /sys/kernel/tracing/trace.
TRACE_CMD = ("                dd-231   [001]     52.341003: page_cache_ra_pattern: dev=252:0 ino=c "
             "pattern=subsequent req=1+1 ra=4+8-8 async=1 mmap=0 actual=8")
FTRACE = ("                dd-231     [001] .....    52.341268: page_cache_ra_pattern: dev=252:0 ino=c "
          "pattern=subsequent req=4+1 ra=12+16-16 async=1 mmap=0 actual=16")
TEXT = "dev=252:0 ino=c pattern=initial req=0+1 ra=0+4-3 async=0 mmap=0 actual=4"


def test_documented_example_trace_cmd():
    ev = ra_events.parse_line(TRACE_CMD + "\n")
    assert ev == {
        "dev": "252:0", "dev_major": 252, "dev_minor": 0, "ino": 12, "pattern": "subsequent",
        "req_index": 1, "req_count": 1, "ra_start": 4, "ra_size": 8, "ra_async_size": 8,
        "async": True, "mmap": False, "actual": 8,
        "comm": "dd", "pid": 231, "cpu": 1, "timestamp": 52.341003,
    }


def test_documented_example_ftrace():
    ev = ra_events.parse_line(FTRACE)
    assert (ev["comm"], ev["pid"], ev["cpu"], ev["timestamp"]) == ("dd", 231, 1, 52.341268)
    assert (ev["ra_start"], ev["ra_size"], ev["ra_async_size"], ev["actual"]) == (12, 16, 16, 16)


def test_other_prefixes():
    # perf script names the system; a prefix of another form still parses the event's text
    ev = ra_events.parse_line("dd 231 [001] 52.1: readahead:page_cache_ra_pattern: " + TEXT)
    assert ev["pattern"] == "initial" and ev["comm"] is None and ev["timestamp"] is None
    ev = ra_events.parse_line("  <...>-7  ( 7) [000] d..1. 1.000001: page_cache_ra_pattern: " + TEXT)
    assert (ev["comm"], ev["pid"], ev["cpu"]) == ("<...>", 7, 0)
    # ino is hexadecimal, numbers are pages, any of the eight patterns
    ev = ra_events.parse_line("x-1 [000] 1.0: page_cache_ra_pattern: dev=0:53 ino=1f3a "
                              "pattern=around req=20+1 ra=4+32-8 async=0 mmap=1 actual=32")
    assert (ev["ino"], ev["dev"], ev["mmap"], ev["async"]) == (0x1F3A, "0:53", True, False)
    for p in ra_events.PATTERNS:
        assert ra_events.parse_text(TEXT.replace("initial", p))["pattern"] == p


def test_patch_examples_parse():
    """Every example line of the event in the series (documentation and changelog) parses."""
    patches = sorted((REPO / "patches").glob("0*.patch"))
    lines = [ln[1:] for p in patches for ln in p.read_text(errors="replace").splitlines()
             if ln.startswith("+") and "page_cache_ra_pattern: dev=" in ln]
    if not lines:
        pytest.skip("no page_cache_ra_pattern example in patches/")
    for line in lines:
        assert ra_events.parse_line(line) is not None, line


@pytest.mark.parametrize("text, field", [
    ("", "field 1 (dev)"),
    (TEXT.replace("dev=252:0", "dev=252,0"), "field 1 (dev)"),
    (TEXT.replace("ino=c", "ino=0xc"), "field 2 (ino)"),
    (TEXT.replace("ino=c", "ino=C"), "field 2 (ino)"),
    (TEXT.replace("initial", "readahead"), "field 3 (pattern)"),
    (TEXT.replace("initial", "0x8"), "field 3 (pattern)"),
    (TEXT.replace("req=0+1", "req=0"), "field 4 (req)"),
    (TEXT.replace("req=0+1", "req=-1+1"), "field 4 (req)"),
    (TEXT.replace("ra=0+4-3", "ra=0+4"), "field 5 (ra)"),
    (TEXT.replace("ra=0+4-3", "ra=0+4+3"), "field 5 (ra)"),
    (TEXT.replace("async=0", "async=true"), "field 6 (async)"),
    (TEXT.replace("async=0", "async=2"), "field 6 (async)"),
    (TEXT.replace("mmap=0", "mmap="), "field 7 (mmap)"),
    (TEXT.replace("actual=4", "actual=4KiB"), "after actual"),
    (TEXT + " ", "after actual"),
    (TEXT.replace(" ", "  ", 1), "field 2 (ino) must be ino="),
    (TEXT.replace(" ", "\t", 1), "field 1 (dev) must be followed by one space"),
    (TEXT.replace(" ino=c", ""), "field 2 (ino)"),
    ("dev=252:0, ino=c, req=0+1, ra=0+4-3, async=0", "field 1 (dev)"),
    ("i_ino=12 s_dev=264241152 pattern=0 req_index=0", "field 1 (dev)"),
])
def test_malformed_text(text, field):
    with pytest.raises(ra_events.ParseError) as e:
        ra_events.parse_text(text)
    assert field in str(e.value)


def test_async_size_larger_than_size():
    with pytest.raises(ra_events.ParseError, match="ASYNC_SIZE is larger than SIZE"):
        ra_events.parse_text(TEXT.replace("ra=0+4-3", "ra=0+4-5"))


def test_other_lines_are_ignored():
    for line in ("cpus=2", "# tracer: nop", "", "CPU 1 is empty",
                 "  dd-231 [001] 52.3: page_cache_sync_ra:   dev=252:0 ino=c index=0 req_count=1",
                 "  dd-231 [001] 52.3: page_cache_ra_patterns: anything",
                 "  [readahead:page_cache_ra_pattern] function show_ra_pattern not defined",
                 "       130      readahead:page_cache_ra_pattern"):
        assert ra_events.parse_line(line) is None, line


def test_parse_names_the_first_bad_line():
    lines = ["cpus=2", TRACE_CMD, FTRACE.replace("ra=12+16-16", "ra=12+16"),
             TRACE_CMD.replace("req=1+1", "req=x")]
    with pytest.raises(ra_events.ParseError) as e:
        ra_events.parse(lines, "report.txt")
    assert str(e.value).startswith("report.txt:3: field 5 (ra)")
    assert "ra=12+16 async=1" in str(e.value)


def test_check():
    assert ra_events.check(ra_events.parse_text(TEXT)) == []
    bad = ra_events.parse_text(TEXT.replace("async=0", "async=1"))
    assert ra_events.check(bad) == ["async=1 with pattern=initial (only subsequent and context)"]
    assert ra_events.check(ra_events.parse_text(TEXT.replace("initial", "subsequent")))
    assert ra_events.check(ra_events.parse_text(TEXT.replace("initial", "around")))
    with pytest.raises(ra_events.ParseError, match="report:2: pattern=subsequent with async=0"):
        ra_events.parse(["x", FTRACE.replace("async=1", "async=0")], "report", strict_check=True)


def test_main(tmp_path, capsys):
    f = tmp_path / "report.txt"
    f.write_text("cpus=2\n" + TRACE_CMD + "\n" + FTRACE + "\n"
                 + "x-1 [000] 1.0: page_cache_ra_pattern: " + TEXT + "\n")
    assert ra_events.main([str(f)]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(e["line"], e["pattern"]) for e in out] == [(2, "subsequent"), (3, "subsequent"),
                                                         (4, "initial")]

    assert ra_events.main(["--summary", "--check", str(f)]) == 0
    rows = {r.split()[0]: r.split()[1:] for r in capsys.readouterr().out.splitlines()[1:]}
    assert rows["subsequent"] == ["2", "2", "0", "24"]
    assert rows["initial"] == ["1", "0", "0", "4"]
    assert rows["all"] == ["3", "2", "0", "28"]
    assert rows["random"] == ["0", "0", "0", "0"]

    f.write_text(f.read_text() + TRACE_CMD.replace("mmap=0", "mmap=no") + "\n")
    assert ra_events.main(["--summary", str(f)]) == 1
    err = capsys.readouterr().err
    assert re.match(r"ra_events: .*report\.txt:5: field 7 \(mmap\)", err), err

    assert ra_events.main([str(tmp_path / "missing")]) == 2


def test_main_file_filter(tmp_path, capsys):
    target = tmp_path / "f"
    target.write_bytes(b"x")
    st = target.stat()
    dev = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    ours = TEXT.replace("dev=252:0 ino=c", f"dev={dev} ino={st.st_ino:x}")
    f = tmp_path / "trace"
    f.write_text("a-1 [000] 1.0: page_cache_ra_pattern: " + ours + "\n" + TRACE_CMD + "\n")
    assert ra_events.main(["--summary", "--file", str(target), str(f)]) == 0
    rows = {r.split()[0]: r.split()[1] for r in capsys.readouterr().out.splitlines()[1:]}
    assert rows["all"] == "1" and rows["initial"] == "1" and rows["subsequent"] == "0"


def test_patch_regex_is_the_parser_s():
    """The regular expression the documentation gives is the one the parser uses."""
    documented = [ln[1:].strip() for p in sorted((REPO / "patches").glob("0*.patch"))
                  for ln in p.read_text(errors="replace").splitlines()
                  if ln.startswith("+  dev=(") and "actual=(" in ln]
    if not documented:
        pytest.skip("patches/ do not document the event's regular expression yet")
    assert documented == [re.sub(r"\?P<\w+>", "", ra_events.TEXT_RE.pattern)]
