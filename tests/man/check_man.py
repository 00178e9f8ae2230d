#!/usr/bin/env python3
"""Checks the man pages in man/ against the programs and the code.

  check_man.py --src SRCDIR --host MFPRIO-HOST --acct MFPRIO-ACCT

1. Every page renders without a warning (groff -man -ww, and man -l when
   man-db is installed), and its .TH line names the programs' version
   (mfprio-host --version) literally, so a page read in place shows it.
2. Tool pages (mfprio-host.1, mfprio-acct.1): every option (a bold word
   starting with '-') in the OPTIONS and COMMANDS sections must appear in the
   program's --help output, run from the build tree.  Under COMMANDS, a
   subsection ".SS name ..." is the command `name`: its options are looked up
   in `PROG name --help` (when that succeeds) and in `PROG --help`, and the
   command name itself must appear in `PROG --help`.  A page naming an option
   the program does not have fails.
3. Configuration pages (mfprio.conf.5, mfprio-<family>.5, and
   priority_mfprio.8 for the Slurm adapter's PriorityParameters items in
   host-shim/slurm/slurm_conf.cpp), both directions
   against the keys the code reads.  The code's key set is taken from the
   readers' sources (the patterns below: the if-chains and key tables of each
   settings parser), because the parsers pass over unknown keys silently and
   so cannot be asked at run time which keys they know.
   - documented -> code: every key named in a .TP tag of a section whose title
     has KEYS or PARAMETERS (outside nested .RS blocks, which hold values such
     as flags) must be a key the family's parser (or the host: mfprio.conf.5's
     set) reads.  Fails when a page documents a key that does not exist.
   - code -> documented: every key the parser reads must be named in bold
     somewhere on the page.  Fails when a parser learns a key the page does
     not describe.
   A pattern that finds no key at all fails too (the parser was rewritten and
   this script must follow it), so the check can never pass vacuously.
4. Every family page lists its deliberate differences (a DELIBERATE
   DIFFERENCES section with items), and each count the README's pointer lines
   state ("- flux: 19 choices") is the number of items on that page.
5. The job file: every field the host's job reader accepts is in
   mfprio-host.1's JOB FILE example, and every key there is accepted.
Exit status 0 when everything holds; every problem is printed, one a line.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

problems = []


def problem(msg):
    problems.append(msg)
    print("FAIL: " + msg)


# ---- roff -------------------------------------------------------------------

def unescape(s):
    s = s.replace("\\-", "-").replace("\\(mu", "x").replace("\\ ", " ").replace("\\&", "")
    return s


def macro_args(rest):
    """Arguments of a macro line, with double quotes grouping."""
    args, cur, quoted, i = [], "", False, 0
    while i < len(rest):
        c = rest[i]
        if c == '"':
            if quoted and i + 1 < len(rest) and rest[i + 1] == '"':
                cur += '"'
                i += 1
            else:
                quoted = not quoted
        elif c in " \t" and not quoted:
            if cur:
                args.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        args.append(cur)
    return args


FONT = {"B": "\\fB", "I": "\\fI", "R": "\\fR"}


def inline(line):
    """A text or font-macro line as text with \\fB/\\fI/\\fR escapes."""
    m = re.match(r"^\.(B|I|BI|IB|BR|RB|IR|RI)(?:\s+(.*))?$", line)
    if not m:
        return line
    fonts, args = m.group(1), macro_args(m.group(2) or "")
    if len(fonts) == 1:
        return FONT[fonts] + " ".join(args) + "\\fR"
    return "".join(FONT[fonts[i % 2]] + a for i, a in enumerate(args)) + "\\fR"


def bold_spans(text):
    """The bold stretches of a line with font escapes."""
    out, font, cur = [], "R", ""
    for part in re.split(r"(\\f[BIRP])", text):
        m = re.match(r"\\f([BIRP])", part)
        if m:
            if font == "B" and cur:
                out.append(cur)
            cur, font = "", ("R" if m.group(1) == "P" else m.group(1))
        elif font == "B":
            cur += part
    if font == "B" and cur:
        out.append(cur)
    return [unescape(s) for s in out]


class Page:
    """A page as (section, subsection, is_tag, in_rs, text) lines."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.lines = []
        section = subsection = ""
        rs = 0
        tag_next = False
        with open(path, encoding="utf-8") as f:
            for raw in f:
                line = raw.rstrip("\n")
                if line.startswith(".SH"):
                    section = unescape(" ".join(macro_args(line[3:]))).upper()
                    subsection, rs = "", 0
                    continue
                if line.startswith(".SS"):
                    subsection = unescape(re.sub(r"\\f[BIRP]", "", " ".join(macro_args(line[3:]))))
                    continue
                if line.startswith(".RS"):
                    rs += 1
                    continue
                if line.startswith(".RE"):
                    rs = max(0, rs - 1)
                    continue
                if line.startswith(".TP"):
                    tag_next = True
                    continue
                if line.startswith(".PD") or line.startswith('.\\"'):
                    continue
                is_tag, tag_next = tag_next, False
                self.lines.append((section, subsection, is_tag, rs > 0, inline(line)))

    def bold_words(self, pred, splitter=r"[\s=,|\[\]()/{}]+"):
        words = []
        for section, subsection, is_tag, in_rs, text in self.lines:
            if pred(section, subsection, is_tag, in_rs):
                for span in bold_spans(text):
                    words += [w for w in re.split(splitter, span) if w]
        return words


# ---- 1. rendering -------------------------------------------------------------

def check_render(path):
    groff = shutil.which("groff")
    if not groff:
        problem(f"{path}: groff is not installed (apt-get install groff-base): cannot check rendering")
        return
    r = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", path], capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        problem(f"{path}: groff -man -ww warns: {r.stderr.strip()}")
    man = shutil.which("man")
    if man:
        env = dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="0")
        r = subprocess.run([man, "-l", path], capture_output=True, text=True, env=env)
        if r.returncode != 0 or r.stderr.strip():
            problem(f"{path}: man -l warns (exit {r.returncode}): {r.stderr.strip()}")


# ---- 2. tool pages ------------------------------------------------------------

OPTION = re.compile(r"^--?[A-Za-z0-9][A-Za-z0-9-]*$")


def help_text(prog, *args):
    r = subprocess.run([prog, *args, "--help"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=60)
    return r.returncode, r.stdout + r.stderr


def has_option(text, opt):
    return re.search(r"(?<![A-Za-z0-9-])" + re.escape(opt) + r"(?![A-Za-z0-9-])", text) is not None


def check_tool(page, prog):
    rc, top_help = help_text(prog)
    if rc != 0:
        problem(f"{page.name}: '{prog} --help' exits {rc}")
    checked = 0
    commands = {}
    seen = set()
    for section, subsection, is_tag, in_rs, text in page.lines:
        if section not in ("OPTIONS", "COMMANDS"):
            continue
        command = subsection.split()[0] if section == "COMMANDS" and subsection else ""
        if command and command not in commands:
            crc, chelp = help_text(prog, command)
            commands[command] = chelp if crc == 0 else ""
            if not re.search(r"(?<![A-Za-z0-9-])" + re.escape(command) + r"(?![A-Za-z0-9-])", top_help):
                problem(f"{page.name}: command '{command}' (COMMANDS) is not in '{prog} --help'")
        for span in bold_spans(text):
            for word in re.split(r"[\s=,|\[\]()/{}]+", span):
                if not OPTION.match(word) or (command, word) in seen:
                    continue
                seen.add((command, word))
                checked += 1
                where = top_help + "\n" + commands.get(command, "")
                if not has_option(where, word):
                    place = f"COMMANDS/{command}" if command else section
                    problem(f"{page.name}: option '{word}' ({place}) is not in "
                            f"'{os.path.basename(prog)}{' ' + command if command else ''} --help'")
    if checked == 0:
        problem(f"{page.name}: no option found in OPTIONS/COMMANDS (the page or this parser changed)")
    return checked


# ---- 3. configuration pages -------------------------------------------------------

def scrape(src, rels, patterns, optional=()):
    """Keys (lower-cased) matched by `patterns` in the files `rels` (one path
    or a list; files that do not exist are skipped, so a reader may move
    between them).  A required pattern that matches in none of them fails."""
    rels = [rels] if isinstance(rels, str) else rels
    texts = []
    for rel in rels:
        try:
            texts.append(open(os.path.join(src, rel), encoding="utf-8").read())
        except FileNotFoundError:
            continue
        except OSError as e:
            problem(f"cannot read {rel}: {e}")
    if not texts:
        problem(f"none of {', '.join(rels)} exists (the parser moved; update tests/man/check_man.py)")
        return set()
    keys = set()
    for pat in patterns:
        # A match may be a list of quoted names ({"sched_conf", "complexes"}).
        found = [n for t in texts for k in re.findall(pat, t) for n in (re.findall(r'"(\w+)"', k) or [k])]
        if not found:
            problem(f"{', '.join(rels)}: pattern {pat!r} finds no key "
                    "(the parser changed; update tests/man/check_man.py)")
        keys |= {k.lower() for k in found}
    for pat in optional:  # forms a reader may or may not use
        keys |= {k.lower() for t in texts for k in re.findall(pat, t)}
    return keys


def code_keys(src):
    # The host and what every program and family reads: mfprio-host's
    # settings, the conf reader (store rule, Include), the slurm.conf records
    # (node lines), the plugin runtime.
    host = scrape(src, ["host-shim/settings.cpp", "common/conf.cpp", "common/slurm_conf.cpp",
                        "plugin/runtime/runtime.cpp"],
                  [r'conf\.find\("(\w+)"\)', r'\bget\("(\w+)"', r'iequals\([\w.\[\]>-]*key, "(\w+)"\)'],
                  optional=[r'attrs\.find\("(\w+)"\)', r'last_pair\(\w+, "(\w+)"\)',
                            r'conf_records\([^;]*?, "(\w+)"\)',
                            r'(?:\.|->)get\("(\w+)"\)'])
    pp = r'iequals\(c\.key, "(PriorityParameters)"\)'
    # The PriorityParameters names a family accepts (common/params.hpp).
    pnames = r'priority_parameters\([^,]+, \{([^}]*)\}'
    fam = {
        "basic": set(),
        "multifactor": scrape(src, "plugin/families/multifactor/mf_settings.cpp", [r'k == "(\w+)"']),
        "maui": scrape(src, "plugin/families/maui/maui_cfg.cpp",
                       [r'"([A-Z]+(?:WEIGHT|CAP))"', r'd\["(\w+)"\]', r'"([A-Z]+CFG)"', r'key == "(\w+)"'])
        | scrape(src, "plugin/families/maui/maui_policy.cpp", [pnames, pp]),
        "gridengine": scrape(src, "common/qconf.cpp", [r'\{"(\w+)", Kind::'])
        | scrape(src, "plugin/families/gridengine/ge_policy.cpp", [pnames, pp]),
        "flux": scrape(src, "plugin/families/flux/flux_settings.cpp", [r'\{"(\w+)", Use::'])
        | scrape(src, "plugin/families/flux/flux_policy.cpp", [pp]),
    }
    # The basic family reads no key: its policy must not look at the conf.
    basic_src = open(os.path.join(src, "plugin/families/basic/basic_policy.cpp"), encoding="utf-8").read()
    if re.search(r"\.key\b|conf\.find", basic_src):
        problem("plugin/families/basic/basic_policy.cpp reads a conf key now: document it in "
                "man/mfprio-basic.5 and add it here")
    return host, fam


KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def check_conf(page, keys, host_keys):
    def key_section(section, subsection, is_tag, in_rs):
        return is_tag and not in_rs and ("KEYS" in section or "PARAMETERS" in section)

    documented = {w for w in page.bold_words(key_section) if KEY.match(w)}
    named = {w.lower() for w in page.bold_words(lambda *a: True) if KEY.match(w)}
    allowed = keys | host_keys
    for k in sorted(documented):
        if k.lower() not in allowed:
            problem(f"{page.name}: documents key '{k}', which the code does not read")
    for k in sorted(keys):
        if k not in named:
            problem(f"{page.name}: the code reads key '{k}', which the page does not name (in bold)")
    return len(documented)


def differences(path):
    """The top-level items (.IP outside .RS) of the page's DELIBERATE
    DIFFERENCES section, or None when it has no such section."""
    items, rs, inside = None, 0, False
    for line in open(path, encoding="utf-8"):
        if line.startswith(".SH"):
            inside = "DELIBERATE DIFFERENCES" in line.upper()
            if inside:
                items = 0
            continue
        if not inside:
            continue
        if line.startswith(".RS"):
            rs += 1
        elif line.startswith(".RE"):
            rs = max(0, rs - 1)
        elif rs == 0 and re.match(r'^\.IP (\\\(bu|\d+\.)', line):
            items += 1
    return items


def check_differences(src, mandir, families):
    """Every family page lists its deliberate differences (the README keeps
    one pointer line per family, no copy): a DELIBERATE DIFFERENCES section
    with at least one item, and the count the README states for a family
    ("- maui and moab: 23 choices") is the page's count."""
    counts = {}
    for fam in families:
        path = os.path.join(mandir, f"mfprio-{fam}.5")
        n = differences(path)
        if not n:
            problem(f"mfprio-{fam}.5: no DELIBERATE DIFFERENCES section with items (every family lists its own)")
        counts[fam] = n or 0
    stated = 0
    for line in open(os.path.join(src, "README.md"), encoding="utf-8"):
        m = re.match(r"^- (\w+)(?: and \w+)?: (\d+) choices?", line)
        if not m:
            continue
        stated += 1
        fam = m.group(1)
        if fam not in counts:
            problem(f"README.md: '{line.strip()}' names no family page")
        elif counts[fam] != int(m.group(2)):
            problem(f"README.md says {fam} has {m.group(2)} deliberate differences; mfprio-{fam}.5 lists {counts[fam]}")
    if stated == 0:
        problem("README.md: no '- <family>: N choices' pointer line found (the README or this check changed)")
    return stated


def check_job_file(src, mandir):
    """The job-file keys, both ways: every field the host's job reader
    accepts (kJobFields in host-shim/jobs_json.cpp, the list it refuses
    other keys by) is a "key": of mfprio-host.1's JOB FILE example, and every
    key there is one the reader accepts."""
    code = open(os.path.join(src, "host-shim/jobs_json.cpp"), encoding="utf-8").read()
    m = re.search(r"kJobFields\[\] = \{(.*?)\};", code, re.S)
    if not m:
        problem("host-shim/jobs_json.cpp: no kJobFields list (the reader changed; update tests/man/check_man.py)")
        return 0
    fields = set(re.findall(r'"(\w+)"', m.group(1)))
    page = open(os.path.join(mandir, "mfprio-host.1"), encoding="utf-8").read()
    sec = re.search(r"^\.SH JOB FILE\n(.*?)(?=^\.SH )", page, re.S | re.M)
    if not sec:
        problem("mfprio-host.1: no JOB FILE section")
        return 0
    example = re.search(r"^\.nf\n(.*?)^\.fi", sec.group(1), re.S | re.M)
    documented = set(re.findall(r'"(\w+)":', example.group(1) if example else ""))
    # Keys inside "attrs"/"requests"/"gres"/"tres" objects are values, not fields.
    documented -= {"user_factor", "gpu", "mem_free", "matlab"}
    for k in sorted(fields - documented):
        problem(f"mfprio-host.1: the job reader accepts '{k}', which the JOB FILE example does not show")
    for k in sorted(documented - fields):
        problem(f"mfprio-host.1: the JOB FILE example shows '{k}', which the job reader refuses")
    return len(fields)


def check_version(path, version):
    # The page is read in place (man -l) as well as installed: its .TH line
    # names the version literally, and it must be the programs' version.
    th = next((l for l in open(path, encoding="utf-8") if l.startswith(".TH ")), "")
    if "@VERSION@" in th:
        problem(f"{path}: .TH still holds @VERSION@ (man -l would show it): write the version")
    elif f'"mfprio {version}"' not in th:
        problem(f"{path}: .TH names another version than the programs' {version}: {th.strip()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True, help="the source tree (man/ and the parsers)")
    ap.add_argument("--host", required=True, help="mfprio-host from the build tree")
    ap.add_argument("--acct", required=True, help="mfprio-acct from the build tree")
    a = ap.parse_args()
    mandir = os.path.join(a.src, "man")
    pages = sorted(f for f in os.listdir(mandir) if re.match(r".*\.[1-8]$", f))
    expected = ["mfprio-acct.1", "mfprio-host.1", "mfprio.conf.5", "mfprio-basic.5", "mfprio-multifactor.5",
                "mfprio-maui.5", "mfprio-gridengine.5", "mfprio-flux.5", "priority_mfprio.8"]
    for e in expected:
        if e not in pages:
            problem(f"man/{e} is missing")
    host_keys, fam_keys = code_keys(a.src)
    version = subprocess.run([a.host, "--version"], capture_output=True, text=True).stdout.split()[-1:]
    for name in pages:
        path = os.path.join(mandir, name)
        check_render(path)
        check_version(path, version[0] if version else "?")
        page = Page(path)
        if name == "mfprio-host.1":
            n = check_tool(page, a.host)
        elif name == "mfprio-acct.1":
            n = check_tool(page, a.acct)
        elif name == "mfprio.conf.5":
            # It points at every family's keys (PriorityParameters) but must
            # name only the host's own.
            n = check_conf(page, host_keys, set().union(*fam_keys.values()))
        elif name == "priority_mfprio.8":
            # The Slurm adapter's own PriorityParameters items (host-shim/slurm),
            # both directions; the rest of the list is the family's.
            n = check_conf(page, scrape(a.src, "host-shim/slurm/slurm_conf.cpp", [r'name == "(\w+)"']), set())
        elif name.startswith("mfprio-") and name.endswith(".5") and name[7:-2] in fam_keys:
            n = check_conf(page, fam_keys[name[7:-2]], host_keys)
        else:
            problem(f"{name}: no check knows this page (add it to tests/man/check_man.py)")
            continue
        print(f"{name}: {n} options/keys checked")
    print(f"job file: {check_job_file(a.src, mandir)} fields checked against mfprio-host.1")
    n = check_differences(a.src, mandir, [f for f in fam_keys if f != "basic"] + ["basic"])
    print(f"deliberate differences: {n} README counts checked against the family pages")
    if problems:
        print(f"{len(problems)} problem(s)")
        return 1
    print("all man pages agree with the programs and the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
