"""The one LRU cache helper behind the stages' in-memory caches."""

import threading

import pytest

from hallucheck._lru import LRUCache


def test_least_recently_used_goes_first_and_hits_are_counted():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1  # "a" is now the most recent
    c.put("c", 3)
    assert "b" not in c and "a" in c and "c" in c and len(c) == 2
    assert c.get("b") is None and c.get("b", "gone") == "gone"
    assert (c.hits, c.misses) == (1, 2)
    c.clear()
    assert len(c) == 0


def test_size_zero_keeps_nothing_and_bad_sizes_are_refused():
    c = LRUCache(0)
    c.put("a", 1)
    assert c.get("a") is None and len(c) == 0
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError):
            LRUCache(bad)


def test_threads_share_it_without_losing_the_bound():
    c = LRUCache(50)

    def work(base):
        for i in range(200):
            c.put((base, i), i)
            c.get((base, i // 2))

    threads = [threading.Thread(target=work, args=(b,)) for b in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(c) == 50
