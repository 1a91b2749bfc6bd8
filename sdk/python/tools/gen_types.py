"""Write loci/types.py, the Python types of loci's OpenAPI document.

    python3 tools/gen_types.py            # rewrite loci/types.py from httpapi/openapi.json
    python3 tools/gen_types.py --check    # exit 1 if loci/types.py is stale

Each component schema becomes a TypedDict (an enum a Literal), and each
operation's JSON success answer a TypedDict named after its operationId
(``recall`` -> ``RecallResponse``). Standard library only; the output
imports only ``typing`` and runs on Python 3.9.
"""

import argparse
import json
import keyword
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "..", "..", "..", "httpapi", "openapi.json")
OUT = os.path.join(HERE, "..", "loci", "types.py")

HEADER = '''"""The types of loci's REST API, generated from its OpenAPI document.

Do not edit: run ``python3 tools/gen_types.py`` in sdk/python after the
document (httpapi/openapi.json) changes.
"""

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

__all__ = [
{names}
]
'''


def ref_name(ref):
    prefix = "#/components/schemas/"
    if not ref.startswith(prefix):
        raise ValueError("unsupported $ref %r" % ref)
    return ref[len(prefix):]


def literal(v):
    """v as Python source: strings in double quotes, like the rest."""
    return json.dumps(v) if isinstance(v, str) else repr(v)


def pascal(op_id):
    return op_id[:1].upper() + op_id[1:]


class Generator:
    def __init__(self, doc):
        self.doc = doc
        self.schemas = doc["components"]["schemas"]
        self.blocks = []  # generated definitions, in order
        self.names = []

    def annotation(self, s):
        """The Python type of schema s, as source text."""
        if not s:
            return "Any"
        if "$ref" in s:
            return '"%s"' % ref_name(s["$ref"])
        if "const" in s:
            return "Literal[%s]" % literal(s["const"])
        if "enum" in s:
            return "Literal[%s]" % ", ".join(literal(v) for v in s["enum"])
        for key in ("oneOf", "anyOf"):
            if key in s:
                return "Union[%s]" % ", ".join(self.annotation(x) for x in s[key])
        if "allOf" in s:
            return "Dict[str, Any]"
        t = s.get("type")
        if isinstance(t, list):
            types = [x for x in t if x != "null"]
            inner = self.annotation(dict(s, type=types[0])) if len(types) == 1 else "Any"
            return "Optional[%s]" % inner if "null" in t else inner
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "null":
            return "None"
        if t == "array":
            return "List[%s]" % self.annotation(s.get("items"))
        if t == "object":
            extra = s.get("additionalProperties")
            if isinstance(extra, dict) and extra and not s.get("properties"):
                return "Dict[str, %s]" % self.annotation(extra)
            return "Dict[str, Any]"
        return "Any"

    def is_object(self, s):
        return s.get("type") == "object" and "properties" in s

    def fields(self, s):
        """The (properties, required) of an object schema or an allOf of them."""
        if "$ref" in s:
            return self.fields(self.schemas[ref_name(s["$ref"])])
        props, required = {}, set()
        for part in s.get("allOf", []):
            p, r = self.fields(part)
            props.update(p)
            required |= r
        for key in ("oneOf", "anyOf"):
            # One of several objects: the fields of each, required when
            # every one requires them.
            alts = [self.fields(part) for part in s.get(key, [])]
            for p, _ in alts:
                props.update(p)
            if alts:
                required |= set.intersection(*(r for _, r in alts))
        props.update(s.get("properties", {}))
        required |= set(s.get("required", []))
        return props, required

    def typed_dict(self, name, s, doc):
        props, required = self.fields(s)
        for prop in props:
            if not prop.isidentifier():
                raise ValueError("%s.%s is not a Python identifier" % (name, prop))
        if any(keyword.iskeyword(p) for p in props):
            # A field named by a keyword ("async") takes the functional
            # syntax, which cannot mark some fields required: all are optional.
            lines = ['%s = TypedDict("%s", {' % (name, name)]
            lines.extend('    "%s": %s,' % (p, self.annotation(props[p])) for p in props)
            lines.append("}, total=False)")
            if doc:
                lines.append('%s.__doc__ = """%s"""' % (name, doc.replace('"""', "'\'\'").replace("\\", "\\\\")))
            self.add(name, "\n".join(lines))
            return
        req = [p for p in props if p in required]
        opt = [p for p in props if p not in required]
        lines = []
        base = "TypedDict"
        if req and opt:
            lines.append("class _%sRequired(TypedDict):" % name)
            lines.extend("    %s: %s" % (p, self.annotation(props[p])) for p in req)
            lines.append("")
            lines.append("")
            base = "_%sRequired" % name
        total = "" if not opt else ", total=False"
        lines.append("class %s(%s%s):" % (name, base, total))
        if doc:
            lines.append('    """%s"""' % doc.replace('"""', "'''").replace("\\", "\\\\"))
            if props:
                lines.append("")
        shown = opt if (req and opt) else (req or opt)
        lines.extend("    %s: %s" % (p, self.annotation(props[p])) for p in shown)
        if not doc and not shown:
            lines.append("    pass")
        self.add(name, "\n".join(lines))

    def add(self, name, text):
        self.names.append(name)
        self.blocks.append(text)

    def run(self):
        for name, s in self.schemas.items():
            doc = s.get("description", "")
            if self.is_object(s) or "allOf" in s:
                self.typed_dict(name, s, doc)
            else:
                self.add(name, "%s = %s" % (name, self.annotation(s)))
        for path, ops in self.doc["paths"].items():
            for method, op in ops.items():
                if not isinstance(op, dict) or "responses" not in op:
                    continue
                for status in ("200", "201"):
                    r = op["responses"].get(status)
                    schema = r and r.get("content", {}).get("application/json", {}).get("schema")
                    if schema is None:
                        continue
                    name = pascal(op["operationId"]) + "Response"
                    doc = "The answer of %s %s." % (method.upper(), path)
                    if self.is_object(schema) or "allOf" in schema:
                        self.typed_dict(name, schema, doc)
                    else:
                        self.add(name, "%s = %s" % (name, self.annotation(schema)))
                    break
        names = "\n".join('    "%s",' % n for n in self.names)
        return HEADER.format(names=names) + "\n\n" + "\n\n\n".join(self.blocks) + "\n"


def generate(spec_path=SPEC):
    with open(spec_path, encoding="utf-8") as f:
        return Generator(json.load(f)).run()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if loci/types.py differs from what would be generated")
    args = ap.parse_args()
    text = generate()
    if args.check:
        with open(OUT, encoding="utf-8") as f:
            if f.read() != text:
                print("sdk/python/loci/types.py is stale: run python3 tools/gen_types.py in sdk/python", file=sys.stderr)
                return 1
        return 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
