"""The build's one step that pyproject.toml cannot say: the wheel carries the extension.

extension/ at the repository root is the one source; building copies it into the package
as whiteboard/extension/, where `whiteboard extension path` finds it in an installed wheel.
An editable install copies nothing: the checkout's extension/ is found in place.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

EXTENSION = Path(__file__).resolve().parent / "extension"


class BuildWithExtension(build_py):
    def run(self):
        super().run()
        if self.editable_mode:
            return
        if not (EXTENSION / "manifest.json").is_file():
            raise SystemExit(f"{EXTENSION} is missing: build from a checkout or an sdist that holds extension/")
        target = Path(self.build_lib) / "whiteboard" / "extension"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(EXTENSION, target, ignore=shutil.ignore_patterns(".*", "__pycache__"))


setup(cmdclass={"build_py": BuildWithExtension})
