"""The package's build backend (PEP 517 and PEP 660), standard library only, so that
``pip install ./sdk/python`` needs no network: pyproject.toml names it with
``backend-path`` and requires nothing, where setuptools would be fetched from an index
into pip's isolated build environment.

It builds what this package is and nothing more: a pure-Python wheel of the ``loci``
package (every ``.py`` file and ``py.typed``), an sdist that can build that wheel again,
and an editable wheel (a ``.pth`` file naming this directory). The metadata is the
``[project]`` table of pyproject.toml: read with tomllib where Python has it (3.11+),
else with the small reader below, which takes the subset of TOML that file uses.
"""

import base64
import csv
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "loci"
SDIST_FILES = ["pyproject.toml", "README.md", "tools/loci_build.py"]

# Files in wheels and sdists get this time (2000-01-01), so builds are reproducible.
_EPOCH = (2000, 1, 1, 0, 0, 0)


def _read_pyproject():
    path = os.path.join(ROOT, "pyproject.toml")
    with open(path, "rb") as f:
        raw = f.read()
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        return _parse_toml_subset(raw.decode("utf-8"))
    return tomllib.loads(raw.decode("utf-8"))


def _parse_toml_subset(text):
    """The TOML of pyproject.toml: [tables], and keys whose values are basic strings,
    arrays of basic strings (one line or several) or ``{}``-free scalars true/false."""
    doc = {}
    table = doc
    lines = iter(text.splitlines())
    for line in lines:
        line = _strip_comment(line).strip()
        if not line:
            continue
        m = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line)
        if m:
            table = doc
            for part in m.group(1).split("."):
                table = table.setdefault(part, {})
            continue
        m = re.fullmatch(r'("[^"]*"|[A-Za-z0-9_-]+)\s*=\s*(.*)', line)
        if not m:
            raise ValueError("pyproject.toml: cannot read %r" % line)
        key, value = m.group(1).strip('"'), m.group(2)
        if value.startswith("[") and not value.endswith("]"):
            for more in lines:
                value += " " + _strip_comment(more).strip()
                if value.endswith("]"):
                    break
        table[key] = _toml_value(value)
    return doc


def _strip_comment(line):
    out, quoted = [], False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            break
        out.append(ch)
    return "".join(out)


def _toml_value(value):
    value = value.strip()
    if value.startswith("["):
        return [_toml_value(v) for v in re.findall(r'"(?:[^"\\]|\\.)*"', value)]
    if value.startswith('"') and value.endswith('"'):
        return value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    if value in ("true", "false"):
        return value == "true"
    raise ValueError("pyproject.toml: unsupported value %r" % value)


def _project():
    project = _read_pyproject()["project"]
    for field in ("name", "version", "description", "requires-python"):
        if not project.get(field):
            raise ValueError("pyproject.toml: [project] has no %s" % field)
    if project.get("dependencies"):
        raise ValueError("pyproject.toml: loci-memory has no dependencies (standard library only)")
    return project


def _dist_name(project):
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _metadata(project):
    lines = [
        "Metadata-Version: 2.1",
        "Name: %s" % project["name"],
        "Version: %s" % project["version"],
        "Summary: %s" % project["description"],
        "Requires-Python: %s" % project["requires-python"],
    ]
    lines += ["Classifier: %s" % c for c in project.get("classifiers", [])]
    readme = project.get("readme")
    body = ""
    if readme:
        with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
            body = f.read()
        lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + body


def _package_files():
    """The package's files, relative to ROOT, sorted."""
    out = []
    base = os.path.join(ROOT, PACKAGE)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py") or name == "py.typed":
                out.append(os.path.relpath(os.path.join(dirpath, name), ROOT).replace(os.sep, "/"))
    if "%s/__init__.py" % PACKAGE not in out:
        raise ValueError("no %s/__init__.py under %s" % (PACKAGE, ROOT))
    return sorted(out)


def _record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _write_wheel(wheel_directory, files, project):
    """A wheel of files ({archive path: bytes}) plus its .dist-info; its file name."""
    name, version = _dist_name(project), project["version"]
    info = "%s-%s.dist-info" % (name, version)
    files = dict(files)
    files[info + "/METADATA"] = _metadata(project).encode("utf-8")
    files[info + "/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: loci_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    ).encode("utf-8")
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for path in sorted(files):
        writer.writerow([path, _record_hash(files[path]), len(files[path])])
    writer.writerow([info + "/RECORD", "", ""])
    files[info + "/RECORD"] = record.getvalue().encode("utf-8")

    filename = "%s-%s-py3-none-any.whl" % (name, version)
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in files if not p.startswith(info)) + [
            info + "/METADATA",
            info + "/WHEEL",
            info + "/RECORD",
        ]:
            zi = zipfile.ZipInfo(path, _EPOCH)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, files[path])
    return filename


# The PEP 517 hooks.


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    files = {}
    for rel in _package_files():
        with open(os.path.join(ROOT, rel), "rb") as f:
            files[rel] = f.read()
    return _write_wheel(wheel_directory, files, project)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel whose .pth file puts this directory on sys.path: edits here are live."""
    project = _project()
    pth = (ROOT + "\n").encode("utf-8")
    return _write_wheel(wheel_directory, {"%s.pth" % _dist_name(project): pth}, project)


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    base = "%s-%s" % (_dist_name(project), project["version"])
    filename = base + ".tar.gz"
    members = sorted(set(SDIST_FILES + _package_files()))
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:

        def add(path, data):
            ti = tarfile.TarInfo(base + "/" + path)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, 946684800  # _EPOCH, UTC
            tar.addfile(ti, io.BytesIO(data))

        for rel in members:
            with open(os.path.join(ROOT, rel), "rb") as f:
                add(rel, f.read())
        add("PKG-INFO", _metadata(project).encode("utf-8"))
    return filename
