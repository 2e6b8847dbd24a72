"""Runs Gotenberg's own integration scenarios (test/integration/features/*.feature of a Gotenberg
checkout) against `pdfgate gotenberg`, one scenario after another, and judges compatibility by
them. Started by run.sh (which sets up the network namespace); see there for usage.

Scenarios are grouped by their container environment so that one warm pdfgate serves all the
scenarios of an environment; each scenario still gets its own scratch directory and helper
servers, as in Gotenberg's harness. Results: one line per scenario as it finishes, then the
failures in file order and the totals. Exit status 1 when the pass share of the scenarios that
ran is below --min-share.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

import gherkin
import steps
from gateway import Gateway, container_env
from skips import CAVEATS, SKIPS

CONTAINER_DEFAULT = "I have a default Gotenberg container"
CONTAINER_ENV = "I have a Gotenberg container with the following environment variable(s):"


def environment_key(sc: gherkin.Scenario):
    """The container environment a scenario asks for first (None: it starts no container)."""
    for st in sc.steps:
        if st.text == CONTAINER_DEFAULT:
            return tuple(sorted(container_env(None).items()))
        if st.text == CONTAINER_ENV:
            return tuple(sorted(container_env({r[0]: r[1] for r in (st.table or [])}).items()))
    return None


def plan(scenarios: list[gherkin.Scenario]) -> list[gherkin.Scenario]:
    """File order, regrouped by environment (groups in order of first appearance)."""
    groups: dict = {}
    for sc in scenarios:
        groups.setdefault(environment_key(sc), []).append(sc)
    return [sc for group in groups.values() for sc in group]


def short(text: str, limit: int = 600) -> str:
    text = " ".join(text.split("\n")) if len(text) > 200 else text
    return text if len(text) <= limit else text[:limit] + "…"


def run_scenario(ctx: steps.RunContext, sc: gherkin.Scenario) -> dict:
    started = time.monotonic()
    result = {"feature": sc.feature_file, "line": sc.line, "name": sc.name, "tags": sc.tags,
              "status": "PASS", "step": None, "step_line": None, "reason": None, "notes": []}
    caveat = CAVEATS.get((sc.feature_file, sc.name))
    if caveat:
        result["notes"].append(caveat)
    world = steps.new_world(ctx)
    try:
        for st in sc.steps:
            try:
                steps.run_step(world, st)
            except steps.UndefinedStep:
                result.update(status="FAIL", step=f"{st.keyword} {st.text}", step_line=st.line,
                              reason="undefined step")
                break
            except steps.StepFailed as e:
                result.update(status="FAIL", step=f"{st.keyword} {st.text}", step_line=st.line, reason=str(e))
                break
            except Exception as e:  # noqa: BLE001 - a runner bug must not stop the run
                result.update(status="FAIL", step=f"{st.keyword} {st.text}", step_line=st.line,
                              reason=f"RUNNER ERROR {type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}")
                break
    finally:
        world.close()
        result["notes"].extend(world.notes)
        if not ctx.keep:
            shutil.rmtree(world.workdir, ignore_errors=True)
    result["seconds"] = round(time.monotonic() - started, 2)
    return result


def print_result(r: dict) -> None:
    loc = f"{r['feature']}:{r['line']}"
    if r["status"] == "SKIP":
        print(f"SKIP  {loc}  {r['name']}  — {r['reason']}", flush=True)
        return
    notes = f"  ({'; '.join(r['notes'])})" if r["notes"] else ""
    print(f"{r['status']}  {loc}  {r['name']}  [{r['seconds']:.1f}s]{notes if r['status'] == 'PASS' else ''}", flush=True)
    if r["status"] == "FAIL":
        print(f"      at line {r['step_line']}: {r['step']}", flush=True)
        print(f"      {short(r['reason'])}", flush=True)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout", nargs="?", help="a Gotenberg checkout or export (has test/integration/features)")
    ap.add_argument("--pdfgate", required=True, help="the pdfgate binary")
    ap.add_argument("--only", action="append", default=[],
                    help="run only scenarios whose name or feature:line contains this (repeatable)")
    ap.add_argument("--min-share", type=float, default=0.95)
    ap.add_argument("--json", help="write the results to this file")
    ap.add_argument("--netns", action="store_true", help="we are in our own network namespace (run.sh)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory (answers, pdfgate logs)")
    ap.add_argument("--gotenberg-version", default="8.36.0", help="{version} in the expected bodies")
    ap.add_argument("--request-timeout", type=float, default=180.0)
    args = ap.parse_args(argv)

    if not args.checkout or not (Path(args.checkout) / "test/integration/features").is_dir():
        print("no Gotenberg checkout given: skipped")
        return 0
    testdir = (Path(args.checkout) / "test/integration").resolve()
    wall = time.monotonic()

    scenarios = gherkin.parse_features(testdir / "features")
    known = {(s.feature_file, s.name) for s in scenarios}
    for key in list(SKIPS) + list(CAVEATS):
        if key not in known:
            print(f"warning: skips.py names a scenario this checkout does not have: {key}", file=sys.stderr)
    if args.only:
        scenarios = [s for s in scenarios if any(o in s.name or o in s.location for o in args.only)]

    scratch = Path(tempfile.mkdtemp(prefix="gotenberg-scenarios-"))
    alias = None
    if args.netns:
        import netns

        netns.enter(scratch)
        mode = "own network namespace, host.docker.internal = 127.0.0.1"
    else:
        alias = "127.0.0.1"
        mode = ("NO network namespace: host.docker.internal replaced by 127.0.0.1 in requests "
                "(scenarios that depend on the host name may fail for that reason)")
    # Not resolved: .build/debug may be re-pointed by a rebuild while we run.
    gateway = Gateway(Path(os.path.abspath(args.pdfgate)), scratch, fixed_port=3000 if args.netns else 0)
    ctx = steps.RunContext(gateway=gateway, testdir=testdir, scratch=scratch, version=args.gotenberg_version,
                           host_alias=alias, request_timeout=args.request_timeout, keep=args.keep)
    try:
        built = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(gateway.binary.stat().st_mtime))
    except OSError:
        built = "missing for now"
    print(f"pdfgate: {gateway.binary} (modified {built})\nscenarios: {testdir / 'features'} ({len(scenarios)} selected)\n"
          f"network: {mode}\nscratch: {scratch}\n", flush=True)

    results: list[dict] = []
    try:
        for sc in plan(scenarios):
            reason = SKIPS.get((sc.feature_file, sc.name))
            if reason:
                r = {"feature": sc.feature_file, "line": sc.line, "name": sc.name, "tags": sc.tags,
                     "status": "SKIP", "reason": reason, "step": None, "step_line": None, "notes": [], "seconds": 0}
            else:
                r = run_scenario(ctx, sc)
            results.append(r)
            print_result(r)
    except KeyboardInterrupt:
        print("\ninterrupted", flush=True)
    finally:
        gateway.stop()
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)

    passed = sum(r["status"] == "PASS" for r in results)
    failed = sum(r["status"] == "FAIL" for r in results)
    skipped = sum(r["status"] == "SKIP" for r in results)
    ran = passed + failed
    share = passed / ran if ran else 1.0
    seconds = time.monotonic() - wall

    failures = sorted((r for r in results if r["status"] == "FAIL"), key=lambda r: (r["feature"], r["line"]))
    if failures:
        print("\nFailures, in file order:")
        for r in failures:
            print(f"  {r['feature']}:{r['line']}  {r['name']}")
            print(f"      at line {r['step_line']}: {r['step']}")
            print(f"      {short(r['reason'])}")
    print(f"\npassed {passed}, failed {failed}, skipped {skipped}; pass share of the {ran} that ran: "
          f"{share:.1%} (threshold {args.min_share:.0%}); {gateway.starts} pdfgate start(s); wall time {seconds:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "pdfgate": str(gateway.binary), "pdfgate_modified": built, "checkout": str(Path(args.checkout).resolve()), "network": mode,
            "passed": passed, "failed": failed, "skipped": skipped, "share": round(share, 4),
            "min_share": args.min_share, "seconds": round(seconds, 1),
            "scenarios": sorted(results, key=lambda r: (r["feature"], r["line"])),
        }, indent=2, ensure_ascii=False) + "\n")
    return 1 if share < args.min_share else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
