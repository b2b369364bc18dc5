"""The streamed answer cut into sentences as it comes, in time linear in its length.

The text after the last cut (``pending``) is re-read only near its new end: after each piece, a
window of the pending text from :data:`WINDOW` characters before the end already read (far enough
back for the splitter's look-behind: a run of closing marks, an abbreviation) to the new end is
split; the whole pending text is split again only once that window holds a sentence end, and then
everything before the last sentence is handed out and dropped from ``pending``. A sentence that
has not ended after ``max_sentence`` characters is handed out in pieces of at most that length,
each cut after a space where there is one: so no piece of work, nor the pending text, grows with
the answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..text.segment import split_sentences

WINDOW = 160  # characters before the new text re-read for a sentence end
MAX_SENTENCE = 1500  # characters of an unfinished sentence; then it is handed out in pieces


@dataclass(frozen=True)
class Segment:
    """``text[start:end]`` of the answer (``raw``), released as one piece; ``sentence`` starts at
    ``offset``."""

    index: int
    start: int
    end: int
    offset: int
    sentence: str
    raw: str = ""


class SentenceBuffer:
    """The answer as it streams in, handed out in segments as each sentence ends. Together the
    segments are the whole answer (each carries the whitespace after its sentence)."""

    def __init__(self, max_sentence: int = MAX_SENTENCE) -> None:
        self.max_sentence = max(16, max_sentence)
        self.pieces: list[str] = []  # the text handed out, in order
        self.cut = 0  # its length: where ``pending`` starts in the answer
        self.pending = ""
        self.scanned = 0  # pending[:scanned] was read and holds no sentence end
        self.count = 0
        self._text: str | None = ""

    @property
    def text(self) -> str:
        """The whole answer so far (joined once per change)."""
        if self._text is None:
            self._text = "".join(self.pieces) + self.pending
        return self._text

    def add(self, piece: str) -> list[Segment]:
        self.pending += piece
        self._text = None
        out = self._ended()
        while len(self.pending) > self.max_sentence:
            out += self._forced()
        return out

    def finish(self) -> list[Segment]:
        out = self._split(final=True)
        if self.pending:  # trailing whitespace (or no sentence at all)
            out.append(self._take(len(self.pending), len(self.pending)))
        return out

    def _ended(self) -> list[Segment]:
        """The segments before the last sentence, when the new text ended one."""
        seen = len(self.pending[: self.scanned].rstrip())
        window = self.pending[max(0, seen - WINDOW) :]
        if len(split_sentences(window)) < 2:
            self.scanned = len(self.pending)
            return []
        out = self._split(final=False)
        self.scanned = len(self.pending)
        return out

    def _split(self, final: bool) -> list[Segment]:
        spans = split_sentences(self.pending)
        ends = [b.start for b in spans[1:]] + ([len(self.pending)] if final else [])
        out = []
        base = 0  # where the pending text started before this split
        for span, end in zip(spans, ends):
            out.append(self._take(end - base, span.start - base, span.text))
            base = end
        return out

    def _forced(self) -> list[Segment]:
        """A piece of an unfinished sentence too long to wait for its end."""
        head = self.pending[: self.max_sentence]
        space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
        cut = space + 1 if space >= self.max_sentence // 2 else self.max_sentence
        lead = min(cut, len(head) - len(head.lstrip()))
        sentence = head[:cut].strip()
        return [self._take(cut, lead, sentence)]

    def _take(self, size: int, lead: int, sentence: str = "") -> Segment:
        """Hand out ``pending[:size]`` (its sentence at ``lead``) as the next segment."""
        raw = self.pending[:size]
        seg = Segment(self.count, self.cut, self.cut + size, self.cut + lead, sentence, raw)
        self.count += 1
        self.pieces.append(raw)
        self.cut += size
        self.pending = self.pending[size:]
        self.scanned = max(0, self.scanned - size)
        self._text = None
        return seg
