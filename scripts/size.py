#!/usr/bin/env python3
"""What the wasm module is made of, and what each package entry ships.

Reads the browser's client module as it ships but with its function names
kept (scripts/size-named.sh: wasm-bindgen, then wasm-opt with the shipped
flags and `-g`), so the sizes are after wasm-opt, with what it inlined
counted in the function it went into. Adds up function-body bytes by crate
and by module, then lists the largest functions; then prints the gzipped
sizes (level 9) of both shipped modules (full and client), of each entry
point's JavaScript, of a browser app importing `retry` and `createFetch`,
bundled and minified by esbuild as an app would be, and of the WebAssembly
component.
Run by `make size` after `make js-build` and scripts/size-named.sh.
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "target/client/stoic_client_named.wasm"
DIST = ROOT / "npm/dist"
CRATES = (
    "serde_json",
    "serde",
    "stoic_core",
    "stoic_wasm",
    "wasm_bindgen",
    "js_sys",
    "talc",
    "getrandom",
    "alloc",
    "core",
    "std",
)


def leb(data: bytes, at: int) -> tuple[int, int]:
    """An unsigned LEB128 number at `at`, and where the next field starts."""
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def sections(data: bytes) -> list[tuple[int, int, int]]:
    """(id, start, size) of every section."""
    found, at = [], 8
    while at < len(data):
        kind = data[at]
        size, at = leb(data, at + 1)
        found.append((kind, at, size))
        at += size
    return found


def imported_functions(data: bytes, start: int) -> int:
    """How many functions the import section brings in (they are indexed first)."""
    count, at = leb(data, start)
    functions = 0
    for _ in range(count):
        for _ in range(2):  # module and field names
            length, at = leb(data, at)
            at += length
        kind = data[at]
        at += 1
        if kind == 0:  # a function: its type index
            _, at = leb(data, at)
            functions += 1
        elif kind == 1:  # a table: element type, limits
            at += 1
            flags, at = leb(data, at)
            _, at = leb(data, at)
            if flags & 1:
                _, at = leb(data, at)
        elif kind == 2:  # a memory: limits
            flags, at = leb(data, at)
            _, at = leb(data, at)
            if flags & 1:
                _, at = leb(data, at)
        elif kind == 3:  # a global: type, mutability
            at += 2
    return functions


def function_names(data: bytes, start: int, size: int) -> dict[int, str]:
    """The name section's function names, if this custom section is it."""
    length, at = leb(data, start)
    if data[at : at + length] != b"name":
        return {}
    at += length
    names: dict[int, str] = {}
    while at < start + size:
        sub = data[at]
        sub_size, at = leb(data, at + 1)
        if sub == 1:
            count, here = leb(data, at)
            for _ in range(count):
                index, here = leb(data, here)
                length, here = leb(data, here)
                names[index] = data[here : here + length].decode("utf8", "replace")
                here += length
        at += sub_size
    return names


def crate_of(name: str) -> str:
    # wasm-bindgen's adapters around the exports, with the binding's code
    # inlined into them: `corepolicy_metrics externref shim`.
    if name.endswith(" shim") or name.startswith(("corepolicy_", "__wbg", "__wbindgen")):
        return "exports (wasm-bindgen shims)"
    head = name[:100]
    return next((crate for crate in CRATES if crate in head), "other")


def module_of(name: str) -> str:
    """The function's module path, three segments deep (`stoic_core::schema::read`)."""
    path = re.sub(r"\[[0-9a-f]{16}\]", "", name).lstrip("<")
    return "::".join(path.split("::")[:3]).split("<")[0].split(" ")[0]


def breakdown(top: int) -> None:
    data = RAW.read_bytes()
    imports, names, bodies = 0, {}, []
    for kind, start, size in sections(data):
        if kind == 2:
            imports = imported_functions(data, start)
        elif kind == 0:
            names.update(function_names(data, start, size))
        elif kind == 10:
            count, at = leb(data, start)
            for index in range(count):
                body, here = leb(data, at)
                bodies.append((imports + index, here - at + body))
                at = here + body
    by_crate: Counter[str] = Counter()
    by_module: Counter[str] = Counter()
    largest = []
    for index, size in bodies:
        name = re.sub(r"::h[0-9a-f]{16}$", "", names.get(index, f"function {index}"))
        by_crate[crate_of(name)] += size
        by_module[module_of(name)] += size
        largest.append((size, name))
    total = sum(by_crate.values())
    print(
        f"function bodies of {RAW.relative_to(ROOT)}: {total:,} bytes "
        "(after wasm-opt, names kept; raw, not gzipped)"
    )
    for crate, size in by_crate.most_common():
        print(f"  {crate:28} {size:9,}  {100 * size / total:5.1f} %")
    print(f"the {top} largest modules:")
    for module, size in by_module.most_common(top):
        print(f"  {size:7,}  {module[:100]}")
    print(f"the {top} largest functions:")
    for size, name in sorted(largest, reverse=True)[:top]:
        print(f"  {size:7,}  {name[:140]}")


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9))


def shipped() -> None:
    modules = (
        ("stoic_wasm", "every entry but the browser's"),
        ("stoic_client", "the browser entry"),
    )
    for name, who in modules:
        path = DIST / f"wasm/{name}_bg.wasm"
        print(
            f"shipped module {path.relative_to(ROOT)} ({who}): {path.stat().st_size:,} bytes, "
            f"{gz(path.read_bytes()):,} gzipped"
        )
    module = DIST / "wasm/stoic_client_bg.wasm"
    entries = ("browser", "full", "node", "workerd", "inline", "inline-client", "manual")
    for entry in entries:
        path = DIST / f"{entry}.js"
        if path.exists():
            print(f"  entry {entry + '.js':17} {gz(path.read_bytes()):8,} bytes gzipped (JS only)")
    esbuild = ROOT / "npm/node_modules/.bin/esbuild"
    with tempfile.TemporaryDirectory() as folder:
        app = Path(folder) / "app.js"
        app.write_text(
            f"import {{ retry, createFetch }} from {str(DIST / 'browser.js')!r};\n"
            "globalThis.app = { retry, createFetch };\n"
        )
        out = Path(folder) / "out.js"
        subprocess.run(
            [
                str(esbuild),
                str(app),
                "--bundle",
                "--minify",
                "--format=esm",
                "--platform=browser",
                "--external:*.wasm",
                f"--outfile={out}",
            ],
            check=True,
            capture_output=True,
        )
        js = gz(out.read_bytes())
        wasm = gz(module.read_bytes())
        print(
            f"a browser app importing retry + createFetch (esbuild --minify): "
            f"{js:,} JS + {wasm:,} wasm = {js + wasm:,} bytes gzipped"
        )


def component() -> None:
    """The WebAssembly component (`make component`), if it is built."""
    path = ROOT / "target/component/stoic.wasm"
    if path.exists():
        print(
            f"component {path.relative_to(ROOT)} (every interface, no imports): "
            f"{path.stat().st_size:,} bytes, {gz(path.read_bytes()):,} gzipped"
        )


def main() -> None:
    top = int(sys.argv[1]) if len(sys.argv) > 1 else 25
    if not RAW.exists():
        sys.exit(f"size: {RAW} is missing; run `make js-build` and scripts/size-named.sh first")
    breakdown(top)
    shipped()
    component()


if __name__ == "__main__":
    main()
