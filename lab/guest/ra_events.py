#!/usr/bin/env python3
"""Parse readahead:page_cache_ra_pattern events from trace text, strictly.

Reads what `trace-cmd report` or /sys/kernel/tracing/trace (or trace_pipe) print, from files
or standard input. Lines of other events and header lines are ignored; every line of this event
must have exactly the text documented in Documentation/trace/events-readahead.rst (patch 3):

    dev=MAJOR:MINOR ino=INO pattern=PATTERN req=INDEX+COUNT ra=START+SIZE-ASYNC_SIZE
    async=A mmap=M actual=ACTUAL                                        (one line in the trace)

all in pages, INO in hexadecimal, A and M 0 or 1, ASYNC_SIZE at most SIZE. The first line that
does not parse is named (file:line, the field and the line) and the exit status is 1.

    ra_events.py [FILE...]             one JSON object per event
    ra_events.py --summary [FILE...]   events, async, mmap and pages read per pattern
    --check                            also the documented relations between fields: async=1
                                       only for subsequent and context, every subsequent
                                       async=1, around mmap=1
    --file PATH                        only events of that file (its st_dev and inode), after
                                       every line was parsed

Standard library only (the guest runs the host's /usr/bin/python3).
"""

import argparse
import json
import os
import re
import sys

EVENT = "page_cache_ra_pattern"

# Order of enum readahead_pattern, as in the statistics file.
PATTERNS = ("initial", "subsequent", "context", "oversize", "around", "fadvise", "random", "thrash")

# The event's text, field by field: (name, regex of "key=value", group names).
FIELDS = (
    ("dev", r"dev=(?P<dev_major>\d+):(?P<dev_minor>\d+)", "MAJOR:MINOR in decimal"),
    ("ino", r"ino=(?P<ino>[0-9a-f]+)", "INO in lowercase hexadecimal"),
    ("pattern", r"pattern=(?P<pattern>" + "|".join(PATTERNS) + r")", "one of " + ", ".join(PATTERNS)),
    ("req", r"req=(?P<req_index>\d+)\+(?P<req_count>\d+)", "INDEX+COUNT in decimal"),
    ("ra", r"ra=(?P<ra_start>\d+)\+(?P<ra_size>\d+)-(?P<ra_async_size>\d+)",
     "START+SIZE-ASYNC_SIZE in decimal"),
    ("async", r"async=(?P<async>[01])", "0 or 1"),
    ("mmap", r"mmap=(?P<mmap>[01])", "0 or 1"),
    ("actual", r"actual=(?P<actual>\d+)", "ACTUAL in decimal"),
)
TEXT_RE = re.compile(" ".join(f for _, f, _ in FIELDS))

# Where the event's text starts: its name (perf script prefixes the system) and a colon, then
# the tracer's separator (trace-cmd pads names shorter than 20 characters, ftrace prints one space).
START_RE = re.compile(r"(?:^|\s)(?:readahead:)?" + EVENT + r":(?:\s+|$)")

# What the tracer prints before it, if it is one of the usual forms (else those keys are None):
# "COMM-PID [CPU] [FLAGS] SECS.USECS:" (trace-cmd report, /sys/kernel/tracing/trace).
PREFIX_RE = re.compile(r"^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(?P<cpu>\d+)\]"
                       r"\s+(?:\S+\s+)?(?P<timestamp>\d+\.\d+):$")

INT_KEYS = ("dev_major", "dev_minor", "req_index", "req_count", "ra_start", "ra_size",
            "ra_async_size", "actual")


class ParseError(ValueError):
    pass


def _diagnose(text):
    """The first field of text that is not as documented (for the error message)."""
    pos = 0
    for i, (name, regex, want) in enumerate(FIELDS):
        m = re.compile(regex).match(text, pos)
        if not m:
            got = text[pos:].split(" ", 1)[0]
            return f"field {i + 1} ({name}) must be {name}={want}, got {got!r}"
        pos = m.end()
        if i + 1 < len(FIELDS):
            if text[pos:pos + 1] != " ":
                return f"field {i + 1} ({name}) must be followed by one space, got {text[pos:pos + 8]!r}"
            pos += 1
    return f"unexpected text after actual=: {text[pos:]!r}"


def parse_text(text):
    """The event's own text (after "page_cache_ra_pattern: ") -> dict; ParseError if it is not
    exactly the documented format."""
    m = TEXT_RE.fullmatch(text)
    if not m:
        raise ParseError(_diagnose(text))
    ev = m.groupdict()
    for k in INT_KEYS:
        ev[k] = int(ev[k])
    ev["dev"] = f"{ev['dev_major']}:{ev['dev_minor']}"
    ev["ino"] = int(ev["ino"], 16)
    ev["async"] = ev["async"] == "1"
    ev["mmap"] = ev["mmap"] == "1"
    if ev["ra_async_size"] > ev["ra_size"]:
        raise ParseError(f"ra={ev['ra_start']}+{ev['ra_size']}-{ev['ra_async_size']}: "
                         "ASYNC_SIZE is larger than SIZE")
    return ev


def parse_line(line):
    """One line of trace text -> dict for a page_cache_ra_pattern event, None for any other
    line; ParseError if it is this event but not in the documented format."""
    line = line.rstrip("\r\n")
    m = START_RE.search(line)
    if not m:
        return None
    ev = parse_text(line[m.end():])
    p = PREFIX_RE.match(line[:m.start()])
    ev["comm"] = p["comm"] if p else None
    ev["pid"] = int(p["pid"]) if p else None
    ev["cpu"] = int(p["cpu"]) if p else None
    ev["timestamp"] = float(p["timestamp"]) if p else None
    return ev


def check(ev):
    """The documented relations between fields; a list of what does not hold."""
    bad = []
    if ev["async"] and ev["pattern"] not in ("subsequent", "context"):
        bad.append(f"async=1 with pattern={ev['pattern']} (only subsequent and context)")
    if ev["pattern"] == "subsequent" and not ev["async"]:
        bad.append("pattern=subsequent with async=0")
    if ev["pattern"] == "around" and not ev["mmap"]:
        bad.append("pattern=around with mmap=0")
    return bad


def parse(lines, name="-", strict_check=False):
    """Every page_cache_ra_pattern event of lines, in order (each with "line": its number).
    ParseError naming name:line for the first one that does not parse (or, with strict_check,
    does not pass check())."""
    events = []
    for n, line in enumerate(lines, 1):
        try:
            ev = parse_line(line)
            if ev is not None and strict_check:
                bad = check(ev)
                if bad:
                    raise ParseError("; ".join(bad))
        except ParseError as e:
            raise ParseError(f"{name}:{n}: {e}: {line.rstrip()}") from None
        if ev is not None:
            ev["line"] = n
            events.append(ev)
    return events


def summary(events):
    """Rows per pattern, in enum order, then "all": (pattern, events, async, mmap, actual)."""
    rows = []
    for p in PATTERNS + ("all",):
        evs = [e for e in events if p in ("all", e["pattern"])]
        rows.append((p, len(evs), sum(e["async"] for e in evs), sum(e["mmap"] for e in evs),
                     sum(e["actual"] for e in evs)))
    return rows


def format_summary(events):
    lines = ["%-10s %8s %8s %8s %10s" % ("pattern", "events", "async", "mmap", "actual")]
    lines += ["%-10s %8d %8d %8d %10d" % row for row in summary(events)]
    return "\n".join(lines) + "\n"


def of_file(events, path):
    st = os.stat(path)
    dev = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    return [e for e in events if e["dev"] == dev and e["ino"] == st.st_ino]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="trace text (default: standard input)")
    ap.add_argument("--summary", action="store_true", help="counts per pattern")
    ap.add_argument("--check", action="store_true", help="also the documented field relations")
    ap.add_argument("--file", metavar="PATH", help="only the events of this file")
    args = ap.parse_args(argv)
    events = []
    try:
        if not args.files:
            events = parse(sys.stdin, "<stdin>", args.check)
        for f in args.files:
            with open(f, errors="replace") as fh:
                events += parse(fh, f, args.check)
        if args.file:
            events = of_file(events, args.file)
    except ParseError as e:
        print(f"ra_events: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"ra_events: {e}", file=sys.stderr)
        return 2
    if args.summary:
        sys.stdout.write(format_summary(events))
    else:
        for e in events:
            print(json.dumps(e, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
