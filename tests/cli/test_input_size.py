"""Inputs are size-checked while they are read: a device, a FIFO, standard input or a file past
the limit is refused with a message that says what to do, after reading at most the cap."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from hallucheck import base
from hallucheck._files import BLOCK, MAX_DATA_FILE_MB, MAX_DATA_FILE_MB_ENV, max_data_file_bytes
from hallucheck.cli import main

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")


class EndlessStream:
    """Standard input that never ends; reading it whole is a failure, not a hang."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            raise AssertionError("the whole stream was read")
        self.read_bytes += n
        return b"a" * n


def error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.startswith("hallucheck: error")]
    assert lines and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def small_limit(monkeypatch):
    """A text limit of 1,000 characters, so that each case reads a few KB."""
    monkeypatch.setattr(base, "MAX_TEXT_CHARS", 1_000)


def test_a_reference_from_dev_zero_is_refused_at_the_limit(capsys):
    code = main(["detect", "--reference", "/dev/zero", "--answer", "The dose is 5 mg.", "--llm", "none"])
    line = error_line(capsys.readouterr().err)
    assert code == 2
    assert "/dev/zero" in line and f"limit of {base.MAX_TEXT_CHARS:,} characters" in line
    assert "Split it into parts" in line


def test_an_answer_from_dev_zero_is_read_as_a_file_and_refused(small_limit, tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("The dose is 5 mg.", encoding="utf-8")
    assert main(["detect", "--reference", str(ref), "--answer", "/dev/zero", "--llm", "none"]) == 2
    line = error_line(capsys.readouterr().err)
    assert "The answer (/dev/zero) is longer than the limit of 1,000 characters" in line


def test_endless_standard_input_is_read_only_up_to_the_cap(small_limit, monkeypatch, capsys):
    stream = EndlessStream()
    monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": stream})())
    assert main(["detect", "--reference", "-", "--answer", "The dose is 5 mg.", "--llm", "none"]) == 2
    assert "The reference (standard input) is longer than the limit" in error_line(capsys.readouterr().err)
    assert stream.read_bytes <= 4 * 1_000 + 4 + 1


def test_a_fifo_that_never_ends_is_refused(small_limit, tmp_path, capsys):
    fifo = tmp_path / "ref.fifo"
    os.mkfifo(fifo)
    stop = threading.Event()

    def writer() -> None:
        try:
            with open(fifo, "wb") as fh:
                while not stop.is_set():
                    fh.write(b"word " * 200)
        except (BrokenPipeError, OSError):
            pass  # the reader closed its end: what should happen

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    code = main(["detect", "--reference", str(fifo), "--answer", "The dose is 5 mg.", "--llm", "none"])
    stop.set()
    t.join(5)
    assert code == 2 and "is longer than the limit of 1,000 characters" in error_line(capsys.readouterr().err)


def test_a_text_over_the_limit_in_characters_is_refused_though_within_the_byte_cap(small_limit, tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("a" * 1_001, encoding="utf-8")
    assert main(["detect", "--reference", str(ref), "--answer", "The dose is 5 mg.", "--llm", "none"]) == 2
    assert "it holds 1,001 characters" in error_line(capsys.readouterr().err)


def test_a_text_at_the_limit_is_read(small_limit, tmp_path):
    from hallucheck.cli._common import read_text_file

    ref = tmp_path / "ref.txt"
    ref.write_text("ä" * 1_000, encoding="utf-8")  # 2,000 bytes, 1,000 characters
    assert read_text_file(str(ref), what="reference") == "ä" * 1_000


def test_check_on_dev_zero_stops_at_the_data_file_cap(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(MAX_DATA_FILE_MB_ENV, "2")
    code = main(["check", "/dev/zero", "--out", str(tmp_path / "run"), "--llm", "none"])
    line = error_line(capsys.readouterr().err)
    assert code == 2
    assert "/dev/zero: larger than the limit of 2 MB for a data file" in line and MAX_DATA_FILE_MB_ENV in line


def test_the_data_file_cap_reads_no_more_than_one_block_past_it(monkeypatch, tmp_path):
    from hallucheck._files import read_capped

    monkeypatch.setenv(MAX_DATA_FILE_MB_ENV, "1")
    big = tmp_path / "rows.jsonl"
    big.write_bytes(b"x" * (3 * BLOCK))
    with pytest.raises(Exception, match="larger than the limit of 1 MB"):
        read_capped(big)
    small = tmp_path / "small.jsonl"
    small.write_bytes(b"y" * 1000)
    assert read_capped(small) == b"y" * 1000


def test_the_data_file_cap_defaults_and_rejects_nonsense(monkeypatch):
    monkeypatch.delenv(MAX_DATA_FILE_MB_ENV, raising=False)
    assert max_data_file_bytes() == MAX_DATA_FILE_MB * 1_000_000
    monkeypatch.setenv(MAX_DATA_FILE_MB_ENV, "lots")
    with pytest.raises(ValueError, match="not a positive number of megabytes"):
        max_data_file_bytes()
