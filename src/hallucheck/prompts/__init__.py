"""Prompts are package files, one per prompt, named ``<name>.v<N>.txt``.

A file holds one or more messages, each opened by a line ``### system``, ``### user`` or
``### assistant``; placeholders are ``${name}`` (string.Template), so JSON braces need no
escaping. The name with its version (``keyword_extract.v1``) goes into the LLM cache key:
changing a prompt means adding a new version file.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..errors import ConfigError
from ..llm.base import Message

_HEADER = re.compile(r"^### (system|user|assistant)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Prompt:
    name: str  # with version, e.g. "keyword_extract.v1"
    parts: tuple[tuple[str, str], ...]

    @property
    def variables(self) -> set[str]:
        found: set[str] = set()
        for _, text in self.parts:
            for m in string.Template.pattern.finditer(text):
                if m.group("named") or m.group("braced"):
                    found.add(m.group("named") or m.group("braced"))
        return found

    def render(self, **values: str) -> tuple[Message, ...]:
        missing = self.variables - set(values)
        if missing:
            raise ConfigError(f"Prompt {self.name} needs values for: {', '.join(sorted(missing))}.")
        return tuple(Message(role, string.Template(text).substitute(values)) for role, text in self.parts)


def available_prompts() -> list[str]:
    return sorted(p.name[:-4] for p in resources.files(__package__).iterdir() if p.name.endswith(".txt"))


@lru_cache(maxsize=None)
def load_prompt(name: str) -> Prompt:
    """Load ``name`` (``keyword_extract.v1``; a bare name takes the newest version)."""
    names = available_prompts()
    if not re.search(r"\.v\d+$", name):
        versions = [n for n in names if n.rsplit(".v", 1)[0] == name]
        if not versions:
            raise ConfigError(f"Unknown prompt {name!r}. Available: {', '.join(names)}.")
        name = max(versions, key=lambda n: int(n.rsplit(".v", 1)[1]))
    if name not in names:
        raise ConfigError(f"Unknown prompt {name!r}. Available: {', '.join(names)}.")
    text = resources.files(__package__).joinpath(f"{name}.txt").read_text(encoding="utf-8")
    heads = list(_HEADER.finditer(text))
    if not heads:
        raise ConfigError(f"Prompt file {name}.txt has no '### system|user|assistant' header.")
    parts = []
    for k, h in enumerate(heads):
        body = text[h.end() : heads[k + 1].start() if k + 1 < len(heads) else len(text)]
        parts.append((h.group(1), body.strip("\n")))
    return Prompt(name, tuple(parts))
