"""A fresh virtual environment that sees the packages of the environment running the tests, so that a
wheel can be installed into it and run with no index.

``python -m venv --system-site-packages`` is not that: its "system" is the base interpreter's
site-packages, so inside a virtual environment (where the dependencies live) the new one lacks them
(``No module named 'rapidfuzz'``). Instead the new environment gets a ``.pth`` file that adds this
interpreter's own site directories (a virtual environment's, or the base's without one) after its own
site-packages: what is installed into it comes first, everything else is found here.

Run as a script (``python tests/_venv.py DIR``) it makes the environment with the interpreter that
runs it and prints its python.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path


def site_dirs() -> list[str]:
    """The site directories of the running interpreter, in its order (a user site only when enabled)."""
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return [d for d in dict.fromkeys(dirs) if os.path.isdir(d)]


def fresh_venv(venv: Path) -> Path:
    """Create ``venv`` (no pip, nothing copied) seeing this interpreter's packages; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout.strip()
    dirs = [d for d in site_dirs() if os.path.realpath(d) != os.path.realpath(purelib)]
    # addsitedir (not a bare path) so that the .pth files there (editable installs, namespaces) apply too
    line = "import site; " + "; ".join(f"site.addsitedir({d!r})" for d in dirs)
    (Path(purelib) / "_outer_site.pth").write_text(line + "\n", encoding="utf-8")
    return python


if __name__ == "__main__":
    print(fresh_venv(Path(sys.argv[1])))
