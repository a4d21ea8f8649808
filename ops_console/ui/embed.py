#!/usr/bin/env python3
"""Compiles the console's web UI into a C++ source file (run by CMake; ops_console/ui/README.md).

    embed.py SRC_DIR NODE_MODULES_DIR OUT.cpp

Every file under SRC_DIR becomes an asset of the binary. Three keep their names, since a browser
asks for them by name: index.html (served at /), sw.js (/sw.js: a service worker's scope is its
folder) and manifest.webmanifest. Every other file is served at /assets/<stem>.<hash>.<ext>, where
<hash> is the first 10 hex digits of the SHA-256 of its content after its own references were
rewritten: a changed module changes its name and the name of every module that imports it, so
the browser may keep each one for a year and an upgrade is never served stale.

References rewritten:
  - in JavaScript, the specifiers of `import ... from "x"`, `import "x"`, `export ... from "x"`
    and of a dynamic `import("x")` (a page loaded when it is first opened): a relative one
    ("./api.js") names a file of SRC_DIR; a bare one ("preact") names a library of VENDOR below,
    copied from NODE_MODULES_DIR;
  - in every text file, `{{asset:path}}` (the hashed URL of SRC_DIR/path) and, in index.html,
    `{{modulepreload}}` (a <link rel=modulepreload> for every module main.js imports statically,
    directly or not, so that the browser fetches that graph at once instead of discovering it
    import by import; a page imported dynamically, and what only it imports, is fetched when it
    is opened), and in sw.js
    `{{shell}}` (a JSON array of the shell's URLs) and `{{version}}`.

Text assets are gzipped at build time (level 9, no timestamp: the output is reproducible); the
server sends that copy to a client that accepts gzip. No bundler: the modules stay as written.
"""
import gzip
import hashlib
import json
import os
import re
import sys

# Bare specifier → (file under NODE_MODULES_DIR, name of its asset). The lock file pins them.
VENDOR = {
    "preact": ("preact/dist/preact.mjs", "vendor/preact.js"),
    "preact/hooks": ("preact/hooks/dist/hooks.mjs", "vendor/preact-hooks.js"),
    "htm": ("htm/dist/htm.module.js", "vendor/htm.js"),
}
# Scripts that are no modules: never preloaded as one.
CLASSIC_SCRIPTS = {"boot.js", "sw.js"}
FIXED_NAMES = {"index.html": "/", "sw.js": "/sw.js", "manifest.webmanifest": "/manifest.webmanifest"}
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
    ".json": "application/json",
}
TEXT = (".html", ".js", ".css", ".svg", ".webmanifest", ".json")
# A statement starts a line or follows a ";" (minified code): an import named in a comment is not one.
IMPORT = re.compile(r"""((?:^|;)[ \t]*(?:import|export)\b\s*(?:[\w*{}\s,$]+?\s*from\s*)?)(["'])([^"']+)\2""", re.M)
# A dynamic import with a literal specifier: `import('./pages/x.js')`.
DYNAMIC_IMPORT = re.compile(r"""(\bimport\(\s*)(["'])([^"']+)\2""")
SOURCE_MAP = re.compile(r"\n?//# sourceMappingURL=\S+\s*$")
PLACEHOLDER = re.compile(r"\{\{asset:([^}]+)\}\}")


def fail(message):
    sys.exit(f"embed.py: {message}")


class Graph:
    def __init__(self, src, node_modules):
        self.src, self.node_modules = src, node_modules
        self.files = {}  # asset name (relative path) → bytes as read
        for root, _, names in os.walk(src):
            for name in names:
                path = os.path.join(root, name)
                rel = os.path.relpath(path, src).replace(os.sep, "/")
                if rel.startswith(".") or rel.endswith("~"):
                    continue
                with open(path, "rb") as f:
                    self.files[rel] = f.read()
        for spec, (file, rel) in VENDOR.items():
            path = os.path.join(node_modules, file)
            if not os.path.exists(path):
                fail(f"{path} is missing: run `npm ci` in ops_console/ui (scripts/test and scripts/demo do)")
            with open(path, "rb") as f:
                self.files[rel] = SOURCE_MAP.sub("\n", f.read().decode()).encode()
        self.urls = {}  # asset name → URL
        self.bodies = {}  # asset name → bytes as served
        self.visiting = set()
        self.static_imports = {}  # module → the modules it imports statically

    def resolve(self, spec, importer):
        if spec in VENDOR:
            return VENDOR[spec][1]
        if not spec.startswith("./") and not spec.startswith("../"):
            fail(f"{importer}: cannot resolve import {spec!r} (a relative path or one of {sorted(VENDOR)})")
        rel = os.path.normpath(os.path.join(os.path.dirname(importer), spec)).replace(os.sep, "/")
        if rel not in self.files:
            fail(f"{importer}: imports {spec!r}, which is not a file of the UI")
        return rel

    def url(self, rel):
        """The URL of asset `rel`, building it (and what it references) first."""
        if rel in self.urls:
            return self.urls[rel]
        if rel in self.visiting:
            fail(f"{rel}: imports form a cycle; break it (a module graph must be acyclic to hash)")
        self.visiting.add(rel)
        body = self.files[rel]
        ext = os.path.splitext(rel)[1]
        if ext in TEXT:
            text = body.decode()
            if ext == ".js":
                imported = []

                def static(m):
                    target = self.resolve(m.group(3), rel)
                    imported.append(target)
                    return m.group(1) + m.group(2) + self.url(target) + m.group(2)

                text = IMPORT.sub(static, text)
                text = DYNAMIC_IMPORT.sub(
                    lambda m: m.group(1) + m.group(2) + self.url(self.resolve(m.group(3), rel)) + m.group(2), text)
                self.static_imports[rel] = imported
            text = PLACEHOLDER.sub(lambda m: self.url(self.checked(m.group(1), rel)), text)
            body = text.encode()
        self.visiting.discard(rel)
        self.bodies[rel] = body
        if rel in FIXED_NAMES:
            self.urls[rel] = FIXED_NAMES[rel]
        else:
            stem, ext = os.path.splitext(rel)
            self.urls[rel] = f"/assets/{stem.replace('/', '-')}.{hashlib.sha256(body).hexdigest()[:10]}{ext}"
        return self.urls[rel]

    def checked(self, rel, referrer):
        if rel not in self.files:
            fail(f"{referrer}: {{{{asset:{rel}}}}} names no file of the UI")
        return rel


def main():
    if len(sys.argv) != 4:
        fail(__doc__.strip().splitlines()[2].strip())
    src, node_modules, out = sys.argv[1:]
    g = Graph(src, node_modules)
    for required in FIXED_NAMES:
        if required not in g.files:
            fail(f"{src}/{required} is missing")

    # Everything but the three fixed files first, so that they can list the others.
    for rel in sorted(g.files):
        if rel not in FIXED_NAMES:
            g.url(rel)
    eager, todo = set(), ["main.js"]
    while todo:
        rel = todo.pop()
        if rel not in eager:
            eager.add(rel)
            todo.extend(g.static_imports.get(rel, []))
    modules = sorted(g.urls[r] for r in eager)
    preload = "\n    ".join(f'<link rel="modulepreload" href="{u}">' for u in modules)
    html = g.files["index.html"].decode().replace("{{modulepreload}}", preload)
    g.files["index.html"] = html.encode()
    g.url("index.html")
    g.url("manifest.webmanifest")
    shell = ["/"] + sorted(u for r, u in g.urls.items() if r not in FIXED_NAMES)
    version = hashlib.sha256("".join(shell).encode()).hexdigest()[:10]
    g.files["sw.js"] = (g.files["sw.js"].decode().replace("{{shell}}", json.dumps(shell))
                        .replace("{{version}}", version).encode())
    g.url("sw.js")

    lines = [
        "// Generated by ops_console/ui/embed.py from ops_console/ui/src: do not edit.",
        '#include "core/http/assets.hpp"',
        "",
        "#include <array>",
        "",
        "namespace {",
    ]
    entries = []
    for i, rel in enumerate(sorted(g.bodies)):
        body = g.bodies[rel]
        ext = os.path.splitext(rel)[1]
        packed = gzip.compress(body, 9, mtime=0) if ext in TEXT else b""
        if len(packed) >= len(body):
            packed = b""
        lines.append(f"constexpr unsigned char kAsset{i}[] = {{{','.join(str(b) for b in body) or '0'}}};")
        lines.append(f"constexpr unsigned char kAsset{i}Gzip[] = {{{','.join(str(b) for b in packed) or '0'}}};")
        etag = '\\"' + hashlib.sha256(body).hexdigest()[:16] + '\\"'
        entries.append(
            f'    {{"{g.urls[rel]}", "{CONTENT_TYPES.get(ext, "application/octet-stream")}", "{etag}", '
            f'{"false" if rel in FIXED_NAMES else "true"}, '
            f"bytes(kAsset{i}, {len(body)}), bytes(kAsset{i}Gzip, {len(packed)})}},")
    lines += [
        "std::string_view bytes(const unsigned char* p, std::size_t n) { return {reinterpret_cast<const char*>(p), n}; }",
        "}  // namespace",
        "",
        "std::span<const core::http::Asset> ops_console_ui_assets() {",
        f"  static const std::array<core::http::Asset, {len(entries)}> assets{{{{",
        *entries,
        "  }};",
        "  return assets;",
        "}",
        "",
    ]
    text = "\n".join(lines)
    if os.path.exists(out):
        with open(out) as f:
            if f.read() == text:
                return  # unchanged: nothing that includes it is rebuilt
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
