"""Corpus loading, chunking, the persisted BM25 index and its errors."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from hallucheck.corpus import BM25Index, Corpus, chunk_text
from hallucheck.errors import ConfigError, InputError
from hallucheck.text.bm25 import bm25_scores

DOCS = [
    "The lighthouse of Port Aldermere was lit in 1791 by Ansel Marrow.",
    "The harbour guild elected Ilse Varga as its first warden.",
    "Kelp farming replaced herring fishing in the 1920s.",
]


def test_chunks_pack_sentences_and_keep_offsets():
    text = (
        "One two three four. Five six seven eight. Nine ten eleven twelve.\n\n"
        "A new paragraph starts here with words. " + " ".join(f"w{i}" for i in range(25)) + "."
    )
    spans = chunk_text(text, passage_words=10)
    assert spans[0] == (0, text.index(" Nine"))  # 8 words, the next sentence would overflow
    for a, b in spans:
        assert text[a:b] == text[a:b].strip() and text[a:b]
    assert all(len(text[a:b].split()) <= 10 for a, b in spans)  # the 26-word sentence is cut
    assert any(text[a:b].startswith("A new paragraph") for a, b in spans)  # a paragraph opens a passage


def test_tiny_heading_paragraph_is_merged_with_the_next():
    text = "# Harbour\n\nThe harbour was dredged in 1850 and again in 1902 for larger ships."
    assert chunk_text(text, passage_words=100) == [(0, len(text))]


def test_index_scores_equal_bm25_scores():
    idx = BM25Index.build(DOCS)
    for q in ("lighthouse Marrow 1791", "first warden warden", "nothing shared"):
        assert np.allclose(idx.scores(q), bm25_scores(q, DOCS))
    again = BM25Index.from_dict(json.loads(json.dumps(idx.to_dict())))
    assert np.allclose(again.scores("harbour guild"), idx.scores("harbour guild"))


def test_load_folder_search_and_index_reuse(tmp_path):
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text(DOCS[0], encoding="utf-8")
    (root / "sub" / "b.md").write_text(DOCS[1], encoding="utf-8")
    (root / "c.jsonl").write_text(json.dumps({"id": "k", "title": "Kelp", "text": DOCS[2]}) + "\n", encoding="utf-8")
    (root / "ignored.csv").write_text("x", encoding="utf-8")
    idx = tmp_path / "index.json"
    c = Corpus.load(root, index_path=idx)
    assert len(c) == 3 and not c.reused and idx.is_file()
    top = c.search("Who lit the lighthouse?", k=3)
    assert top[0].source == "a.txt" and top[0].score > 0
    assert all(p.score > 0 for p in top)  # passages sharing no term are left out
    kelp = c.search("kelp farming")[0]
    assert kelp.source == "c.jsonl#k" and kelp.title == "Kelp" and DOCS[2][kelp.start : kelp.end] == kelp.text
    c2 = Corpus.load(root, index_path=idx)
    assert c2.reused and [p.id for p in c2.search("lighthouse")] == [p.id for p in c.search("lighthouse")]
    (root / "a.txt").write_text(DOCS[0] + " It was rebuilt in 1888.", encoding="utf-8")
    c3 = Corpus.load(root, index_path=idx)
    assert not c3.reused and "1888" in c3.search("rebuilt")[0].text


def test_default_index_location_is_the_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("HALLUCHECK_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "a.txt").write_text(DOCS[0], encoding="utf-8")
    c = Corpus.load(tmp_path / "a.txt")
    assert c.index_path and c.index_path.startswith(str(tmp_path / "cache"))
    assert Corpus.load(tmp_path / "a.txt").reused


def test_errors_say_what_to_do(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        Corpus.load(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no .txt, .md or .jsonl"):
        Corpus.load(tmp_path / "empty")
    (tmp_path / "blank").mkdir()
    (tmp_path / "blank" / "a.txt").write_text("   \n", encoding="utf-8")
    with pytest.raises(InputError, match="has no text"):
        Corpus.load(tmp_path / "blank", save_index=False)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "ok.txt").write_text(DOCS[0], encoding="utf-8")
    (tmp_path / "bad" / "latin.txt").write_bytes("Caf\xe9 au lait.".encode("latin-1"))
    with pytest.raises(InputError, match="latin.txt.*not valid UTF-8.*skip"):
        Corpus.load(tmp_path / "bad", save_index=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c = Corpus.load(tmp_path / "bad", save_index=False, on_bad_file="skip")
    assert c.skipped == ["latin.txt"] and len(c) == 1 and any("latin.txt" in str(w.message) for w in caught)
    (tmp_path / "j").mkdir()
    (tmp_path / "j" / "d.jsonl").write_text('{"title": "no text"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 1 has no string 'text'"):
        Corpus.load(tmp_path / "j", save_index=False)
    with pytest.raises(ConfigError):
        Corpus.from_texts(DOCS).search("x", k=0)
