"""A small Gherkin parser: enough of the language for Gotenberg's feature files and a little more.

Supported: Feature (with tags and a free description), Background, Rule (its own Background),
Scenario/Example, Scenario Outline/Template with Examples/Scenarios tables (tags on each
Examples block), steps (Given/When/Then/And/But/*), doc strings (\"\"\" or ```, de-indented to
the opening delimiter as the official parser does), data tables with the official cell escapes
(\\| \\\\ \\n), comments (# at line start, also between a step and its argument).

The result is a list of runnable scenarios ("pickles"): background steps first, outlines
expanded one per example row, tags inherited from the feature, rule and examples block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

STEP_KEYWORDS = ("Given ", "When ", "Then ", "And ", "But ", "* ")


@dataclass
class DocString:
    content: str
    media_type: str = ""


@dataclass
class Step:
    keyword: str  # "Given", "When"… as written (And/But kept: godog matches on the text only)
    text: str
    line: int
    table: list[list[str]] | None = None  # every row; godog hands the step all of them
    doc: DocString | None = None


@dataclass
class Scenario:
    feature_file: str  # the file's name, e.g. "root.feature"
    feature_name: str
    name: str
    line: int  # the Scenario keyword's line (an outline's example: the example row's line)
    tags: list[str]
    steps: list[Step]

    @property
    def location(self) -> str:
        return f"{self.feature_file}:{self.line}"


class GherkinError(Exception):
    pass


def _unescape_cell(cell: str) -> str:
    out, i = [], 0
    while i < len(cell):
        ch = cell[i]
        if ch == "\\" and i + 1 < len(cell):
            nxt = cell[i + 1]
            if nxt == "|":
                out.append("|")
            elif nxt == "\\":
                out.append("\\")
            elif nxt == "n":
                out.append("\n")
            else:
                out.append(ch + nxt)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_row(line: str) -> list[str]:
    """`| a | b\\|c |` -> ["a", "b|c"]: split on unescaped pipes, each cell trimmed, then unescaped."""
    s = line.strip()
    if not s.startswith("|"):
        raise GherkinError(f"not a table row: {line!r}")
    cells, cur, i = [], [], 1
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s):
            cur.append(s[i : i + 2])
            i += 2
            continue
        if ch == "|":
            cells.append(_unescape_cell("".join(cur).strip()))
            cur = []
        else:
            cur.append(ch)
        i += 1
    return cells


@dataclass
class _Outline:
    name: str
    line: int
    tags: list[str]
    steps: list[Step]
    examples: list[tuple[list[str], list[str], list[tuple[int, list[str]]]]] = field(default_factory=list)
    # each: (examples tags, header, [(row line, cells)])


def parse_feature(path: Path) -> list[Scenario]:
    lines = path.read_text(encoding="utf-8").split("\n")
    file_name = path.name
    feature_name = ""
    feature_tags: list[str] = []
    feature_background: list[Step] = []
    rule_background: list[Step] = []
    rule_tags: list[str] = []
    pending_tags: list[str] = []
    pickles: list[Scenario] = []

    # What steps currently attach to: ("background", list) / ("scenario", Scenario) / ("outline", _Outline)
    target_steps: list[Step] | None = None
    in_rule = False
    current_outline: _Outline | None = None
    current_examples = None  # the examples block being filled
    outlines: list[tuple[_Outline, list[Step], list[str]]] = []  # (outline, background, inherited tags)

    def background() -> list[Step]:
        return feature_background + (rule_background if in_rule else [])

    i = 0
    while i < len(lines):
        raw = lines[i]
        s = raw.strip()
        lineno = i + 1
        i += 1
        if not s or s.startswith("#"):
            continue
        if s.startswith("@"):
            # Tags, possibly followed by a comment.
            s = s.split(" #", 1)[0]
            pending_tags.extend(t for t in s.split() if t.startswith("@"))
            continue
        keyword, _, rest = s.partition(":")
        keyword = keyword.strip()
        if keyword == "Feature" and ":" in s:
            feature_name = rest.strip()
            feature_tags, pending_tags = pending_tags, []
            target_steps = None
            continue
        if keyword == "Rule" and ":" in s:
            in_rule = True
            rule_background = []
            rule_tags, pending_tags = pending_tags, []
            target_steps = None
            current_outline = None
            continue
        if keyword == "Background" and ":" in s:
            target_steps = rule_background if in_rule else feature_background
            current_outline = None
            pending_tags = []
            continue
        if keyword in ("Scenario", "Example") and ":" in s:
            sc = Scenario(file_name, feature_name, rest.strip(), lineno,
                          feature_tags + (rule_tags if in_rule else []) + pending_tags, list(background()))
            pending_tags = []
            pickles.append(sc)
            target_steps = sc.steps
            current_outline = None
            continue
        if keyword in ("Scenario Outline", "Scenario Template") and ":" in s:
            current_outline = _Outline(rest.strip(), lineno, pending_tags, [])
            outlines.append((current_outline, list(background()), feature_tags + (rule_tags if in_rule else [])))
            # Placeholder in the pickle list, replaced by its expansion below (keeps file order).
            pickles.append(current_outline)  # type: ignore[arg-type]
            pending_tags = []
            target_steps = current_outline.steps
            continue
        if keyword in ("Examples", "Scenarios") and ":" in s:
            if current_outline is None:
                raise GherkinError(f"{file_name}:{lineno}: Examples outside a Scenario Outline")
            current_examples = (pending_tags, [], [])
            current_outline.examples.append(current_examples)
            pending_tags = []
            target_steps = None
            continue
        if s.startswith("|"):
            cells = parse_row(s)
            if current_examples is not None and target_steps is None:
                if not current_examples[1]:
                    current_examples[1].extend(cells)
                else:
                    current_examples[2].append((lineno, cells))
                continue
            if target_steps is None or not target_steps:
                raise GherkinError(f"{file_name}:{lineno}: table without a step")
            step = target_steps[-1]
            if step.table is None:
                step.table = []
            step.table.append(cells)
            continue
        if s.startswith('"""') or s.startswith("```"):
            if target_steps is None or not target_steps:
                raise GherkinError(f"{file_name}:{lineno}: doc string without a step")
            delim = s[:3]
            media = s[3:].strip()
            indent = len(raw) - len(raw.lstrip())
            body: list[str] = []
            while True:
                if i >= len(lines):
                    raise GherkinError(f"{file_name}:{lineno}: unterminated doc string")
                inner = lines[i]
                i += 1
                if inner.strip() == delim:
                    break
                # Remove up to `indent` leading whitespace characters, as the official parser does.
                k = 0
                while k < indent and k < len(inner) and inner[k] in " \t":
                    k += 1
                text = inner[k:]
                if delim == '"""':
                    text = text.replace('\\"\\"\\"', '"""')
                else:
                    text = text.replace("\\`\\`\\`", "```")
                body.append(text)
            target_steps[-1].doc = DocString("\n".join(body), media)
            continue
        matched = next((k for k in STEP_KEYWORDS if s.startswith(k)), None)
        if matched:
            if target_steps is None:
                raise GherkinError(f"{file_name}:{lineno}: step outside a scenario: {s!r}")
            target_steps.append(Step(matched.strip(), s[len(matched):].strip(), lineno))
            continue
        # Free text: a feature's or a scenario's description. Ignored.
        continue

    # Expand outlines in place.
    expanded: list[Scenario] = []
    outline_info = {id(o): (bg, inherited) for o, bg, inherited in outlines}
    for item in pickles:
        if isinstance(item, Scenario):
            expanded.append(item)
            continue
        outline: _Outline = item  # type: ignore[assignment]
        bg, inherited = outline_info[id(outline)]
        for ex_tags, header, rows in outline.examples:
            for row_line, cells in rows:
                values = dict(zip(header, cells))

                def sub(text: str) -> str:
                    return re.sub(r"<([^<>]+)>", lambda m: values.get(m.group(1), m.group(0)), text)

                steps = list(bg)
                for st in outline.steps:
                    steps.append(Step(
                        st.keyword, sub(st.text), st.line,
                        [[sub(c) for c in r] for r in st.table] if st.table is not None else None,
                        DocString(sub(st.doc.content), st.doc.media_type) if st.doc else None,
                    ))
                expanded.append(Scenario(file_name, feature_name, sub(outline.name), row_line,
                                         inherited + outline.tags + ex_tags, steps))
    return expanded


def parse_features(directory: Path) -> list[Scenario]:
    scenarios: list[Scenario] = []
    for path in sorted(directory.glob("*.feature")):
        scenarios.extend(parse_feature(path))
    return scenarios
