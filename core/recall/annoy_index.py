"""The Annoy index: derived data, rebuilt from the stored vectors.

Files per (kind, embedder) in the index folder:

* ``<stem>.annoy``: the Annoy forest (angular metric), memory-mapped when
  loaded. It holds the vectors *projected* on their ``proj_dim`` principal
  directions (``<stem>.proj.npy``), which makes every distance Annoy computes
  several times cheaper; the candidates it returns are then re-ranked by the
  exact cosine with the full vectors. A large index is split into *shards*
  (``<stem>.annoy``, ``<stem>.1.annoy``, …), each a forest over a contiguous
  slice of the positions, searched in parallel threads (Annoy releases the
  GIL) with a share of ``search_k`` each;
* ``<stem>.vec.npy``: the full vectors in Annoy position order (float32,
  memory-mapped, so processes share them through the page cache), for that
  re-ranking, the exact mode and duplicate checks;
* ``<stem>.ids.npy``: the item id of each Annoy position (int64);
* ``<stem>.json``: the manifest: embedder name, version and dimension, the
  number of items, the highest vector row id included (rows after it are the
  *tail*, searched exactly until the next build), the build settings, and the
  size and checksum of every other file.

A build writes all files under temporary names, flushes them to disk and
renames them into place, manifest last, so a reader sees either the old index
or the new one — or, after a build killed between two renames, new parts
under the old manifest, which the checksums reveal. The temporary files of a
killed build are removed by the next build. A reader checks the manifest against the files and the
embedder before loading: a missing, half-written, corrupt or mismatched index
is reported (``open_index`` returns the reason) and rebuilt, never raised.
Annoy's ``add_item`` is never called on a built index (it silently corrupts
it); new items wait in the tail until the next build.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import mmap
import os
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

import numpy as np
from annoy import AnnoyIndex

from ..failpoints import point
from .vectors import VectorBlock

FORMAT = 5  # 5: the manifest records the store's erasure count
METRIC: Final = "angular"
_SAMPLE_BLOCKS = 64
_SAMPLE_SIZE = 1 << 16
_PCA_SAMPLE = 20_000
_ARRAYS = ("ids", "vec", "proj")
_MAX_SHARDS = 16  # more than any build makes (IndexSettings.shards_for)


def parts(shards: int) -> tuple[str, ...]:
    """The files of an index with ``shards`` Annoy forests, by part name."""
    return ("annoy", *(f"annoy{s}" for s in range(1, shards)), *_ARRAYS)


def shard_bounds(items: int, shards: int) -> list[int]:
    """The first position of each shard, and ``items`` last."""
    return [items * s // shards for s in range(shards + 1)]


@dataclass(frozen=True, slots=True)
class Manifest:
    """What an index holds and how it was built; ``files`` maps each part
    (annoy, ids, vec, proj) to its size and checksum."""

    format: int
    kind: str
    embedder: str
    embedder_version: str
    dim: int
    proj_dim: int
    items: int
    max_row_id: int
    n_trees: int
    shards: int
    metric: str
    built_at: float
    build_seconds: float
    files: dict
    erasures: int = 0
    """The store's erasure count when the index was built (``store_meta.erasures``):
    an index built before a later erasure may hold erased vectors and is discarded."""

    def to_dict(self) -> dict:
        return asdict(self)


def file_checksum(path: Path) -> str:
    """blake2b of the file's size and of up to 64 evenly spaced 64 KiB blocks
    (the whole file when it is smaller than 4 MiB).

    Sampling keeps the check to milliseconds for a multi-gigabyte index while
    still catching truncation, a half-written file and most overwrites.
    """
    size = path.stat().st_size
    h = hashlib.blake2b(str(size).encode(), digest_size=16)
    with path.open("rb") as f:
        if size <= _SAMPLE_BLOCKS * _SAMPLE_SIZE:
            h.update(f.read())
        else:
            step = (size - _SAMPLE_SIZE) // (_SAMPLE_BLOCKS - 1)
            for i in range(_SAMPLE_BLOCKS):
                f.seek(i * step)
                h.update(f.read(_SAMPLE_SIZE))
    return h.hexdigest()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", text)


@dataclass(frozen=True, slots=True)
class IndexFiles:
    """Where the index of one kind of item for one embedder lives."""

    folder: Path
    kind: str
    embedder: str
    embedder_version: str

    @property
    def stem(self) -> str:
        return _slug(f"{self.kind}-{self.embedder}@{self.embedder_version}")

    def part(self, name: str) -> Path:
        if name == "annoy":
            return self.folder / f"{self.stem}.annoy"
        if name.startswith("annoy"):
            return self.folder / f"{self.stem}.{name[5:]}.annoy"
        return self.folder / f"{self.stem}.{name}.npy"

    @property
    def annoy(self) -> Path:
        return self.part("annoy")

    @property
    def ids(self) -> Path:
        return self.part("ids")

    @property
    def manifest(self) -> Path:
        return self.folder / f"{self.stem}.json"

    def manifest_stamp(self) -> tuple[int, int] | None:
        """(mtime_ns, size) of the manifest, to notice a rebuild by another process."""
        try:
            st = self.manifest.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def remove(self) -> list[Path]:
        """Delete this index's files (manifest first, so a reader never sees a
        manifest without its parts). Returns the files removed."""
        removed: list[Path] = []
        for path in (self.manifest, *(self.part(p) for p in parts(_MAX_SHARDS))):
            try:
                path.unlink()
                removed.append(path)
            except FileNotFoundError:
                pass
        return removed

    def size_on_disk(self) -> int:
        manifest, _ = read_manifest(self)
        names = parts(manifest.shards if manifest else 1)
        return sum(self.part(p).stat().st_size for p in names if self.part(p).exists())


class LoadedIndex:
    """A built index, memory-mapped and read-only. Safe to search from many threads."""

    def __init__(self, forests: list[AnnoyIndex], item_ids: np.ndarray, vectors: np.ndarray,
                 proj: np.ndarray, manifest: Manifest, stamp: tuple[int, int] | None) -> None:
        self.forests = forests
        self.offsets = shard_bounds(len(item_ids), len(forests))[:-1]
        self.item_ids = item_ids
        self.vectors = vectors.view(np.ndarray)  # plain indexing, no memmap wrapper per read
        self.proj = proj
        self.manifest = manifest
        self.stamp = stamp
        # the other shards are searched here while the calling thread does the first
        self._pool = (ThreadPoolExecutor(len(forests) - 1, thread_name_prefix="memdesk-shard")
                      if len(forests) > 1 else None)

    def __len__(self) -> int:
        return int(self.item_ids.shape[0])

    def search(self, query: np.ndarray, n: int, search_k: int,
               rerank: int = 200) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` nearest items: (item ids, exact cosines), best first. Annoy
        proposes ``max(n, rerank)`` candidates in the projected space (each
        shard its share, with its share of ``search_k``); they are re-ranked by
        the exact cosine with the full vectors."""
        shards = len(self.forests)
        want = max(n, -(-rerank // shards))
        share = -(-search_k // shards)
        projected = dot(self.proj.T, query).tolist()

        def shard(s: int) -> list[int]:
            found = self.forests[s].get_nns_by_vector(projected, want, search_k=share)
            offset = self.offsets[s]
            return [offset + i for i in found] if offset else found

        if self._pool is None:
            pos = shard(0)
        else:
            others = [self._pool.submit(shard, s) for s in range(1, shards)]
            pos = shard(0)
            for f in others:
                pos += f.result()
        if not pos:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        # ascending positions: rows of the memory-mapped file are read in order
        p = np.sort(np.asarray(pos, dtype=np.int64))
        sims = dot(self.vectors[p], query)
        order = np.argsort(-sims, kind="stable")[:n]
        return self.item_ids[p[order]], sims[order]

    def similarities(self, query: np.ndarray, chunk: int = 65_536) -> np.ndarray:
        """Exact cosine of every indexed item (float32 arithmetic, in chunks)."""
        out = np.empty(len(self), dtype=np.float32)
        for s in range(0, len(self), chunk):
            out[s:s + chunk] = self.vectors[s:s + chunk] @ query
        return out


def dot(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix @ vector`` without BLAS threads for small matrices: on a busy
    machine OpenBLAS's thread hand-off costs milliseconds where the arithmetic
    costs microseconds (measured: 1,000 x 512 rows in 14 ms with BLAS, 0.25 ms
    with einsum). Large matrices still go to BLAS."""
    if matrix.shape[0] <= 20_000:
        return np.einsum("ij,j->i", matrix, vector)
    return matrix @ vector


def read_manifest(files: IndexFiles) -> tuple[Manifest | None, str | None]:
    """The manifest, or None and the reason it cannot be used."""
    try:
        data = json.loads(files.manifest.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, "no index has been built yet"
    except (OSError, ValueError) as exc:
        return None, f"its manifest is unreadable ({exc.__class__.__name__})"
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        got = data.get("format") if isinstance(data, dict) else None
        return None, f"it has index format {got}, this memdesk writes {FORMAT}"
    try:
        manifest = Manifest(**data)
    except TypeError:
        return None, "its manifest has missing or unknown fields"
    if (not isinstance(manifest.shards, int) or manifest.shards < 1
            or not isinstance(manifest.files, dict)
            or set(manifest.files) != set(parts(manifest.shards))):
        return None, "its manifest does not list its files"
    return manifest, None


def open_index(files: IndexFiles, dim: int) -> tuple[LoadedIndex | None, str | None]:
    """Load and check the index. Returns (index, None), or (None, why it cannot be used)."""
    stamp = files.manifest_stamp()
    manifest, why = read_manifest(files)
    if manifest is None:
        return None, why
    if (manifest.embedder, manifest.embedder_version) != (files.embedder, files.embedder_version):
        return None, (f"it was built with {manifest.embedder}@{manifest.embedder_version}, "
                      f"the embedder now is {files.embedder}@{files.embedder_version}")
    if manifest.dim != dim or manifest.kind != files.kind or manifest.metric != METRIC:
        return None, (f"it holds {manifest.kind} vectors of dimension {manifest.dim} "
                      f"({manifest.metric}), expected {files.kind} of dimension {dim} ({METRIC})")
    for part in parts(manifest.shards):
        path, info = files.part(part), manifest.files[part]
        try:
            actual = path.stat().st_size
        except OSError:
            return None, f"{path.name} is missing"
        if actual != info.get("size"):
            return None, f"{path.name} has {actual} bytes, its manifest says {info.get('size')} (half-written?)"
        if file_checksum(path) != info.get("checksum"):
            return None, f"{path.name} does not match its checksum (corrupt or replaced)"
    try:
        item_ids = np.load(files.ids, allow_pickle=False)
        vectors = np.load(files.part("vec"), mmap_mode="r", allow_pickle=False)
        proj = np.load(files.part("proj"), allow_pickle=False)
    except (OSError, ValueError) as exc:
        return None, f"its arrays are unreadable ({exc.__class__.__name__})"
    n = manifest.items
    if (item_ids.dtype != np.int64 or item_ids.shape != (n,) or vectors.shape != (n, dim)
            or vectors.dtype != np.float32 or proj.shape != (dim, manifest.proj_dim)):
        return None, f"its arrays do not hold the {n} items of dimension {dim} of its manifest"
    forests: list[AnnoyIndex] = []
    bounds = shard_bounds(n, manifest.shards)
    for s in range(manifest.shards):
        path = files.part(f"annoy{s}" if s else "annoy")
        annoy = AnnoyIndex(manifest.proj_dim, METRIC)
        try:
            annoy.load(str(path), prefault=False)
        except OSError as exc:
            for f in forests:
                f.unload()
            return None, f"{path.name} cannot be loaded ({exc})"
        forests.append(annoy)
        if annoy.get_n_items() != bounds[s + 1] - bounds[s]:
            for f in forests:
                f.unload()
            return None, f"{path.name} does not hold the {bounds[s + 1] - bounds[s]} items of its manifest"
    populate_in_background(vectors)
    return LoadedIndex(forests, item_ids, vectors, proj.astype(np.float32), manifest, stamp), None


_MADV_POPULATE_READ = 22  # Linux 5.14+: map every page of a file mapping now


def populate_in_background(array: np.ndarray) -> None:
    """Map every page of a large memory-mapped array in a background thread.

    Re-ranking reads ~1,000 random rows of the vector file per search; each
    row not yet mapped in this process costs a page fault, about 1–2 ms per
    search at 1M items until most of the file has been touched. Mapping it
    up front (from the page cache, ~0.15 s for 2 GB) removes that. Linux only
    (MADV_POPULATE_READ); elsewhere, or on older kernels, nothing happens.
    ctypes releases the GIL for the call, so searches and the app go on.
    """
    if not sys.platform.startswith("linux") or array.nbytes < (64 << 20):
        return
    try:
        madvise = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    addr = array.ctypes.data
    start = addr & ~(mmap.PAGESIZE - 1)
    threading.Thread(target=madvise, args=(start, array.nbytes + addr - start, _MADV_POPULATE_READ),
                     name="memdesk-populate", daemon=True).start()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def projection(vectors: np.ndarray, proj_dim: int, seed: int = 1) -> np.ndarray:
    """The ``proj_dim`` principal directions of (a sample of) the vectors, as a
    (dim, proj_dim) matrix; the identity when ``proj_dim`` is 0 or not smaller
    than the dimension."""
    dim = vectors.shape[1]
    if proj_dim <= 0 or proj_dim >= dim or len(vectors) <= proj_dim:
        return np.eye(dim, dtype=np.float32)
    rng = np.random.default_rng(seed)
    sample = vectors if len(vectors) <= _PCA_SAMPLE else vectors[
        np.sort(rng.choice(len(vectors), _PCA_SAMPLE, replace=False))]
    sample = np.asarray(sample, dtype=np.float64)
    _, _, vt = np.linalg.svd(sample - sample.mean(axis=0), full_matrices=False)
    return np.ascontiguousarray(vt[:proj_dim].T, dtype=np.float32)


_TMP = re.compile(r"\.tmp-(\d+)-[0-9a-f]{8}$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


INDEX_KINDS = ("memory", "turn")


def remove_index_files(folder: Path) -> list[Path]:
    """Delete every index file in ``folder`` (of any kind and embedder, and any
    temporary file of a build), nothing else: after an erasure, no file may
    keep an erased vector. Returns the files removed; a file that cannot be
    removed is left (and an index opened from it is discarded all the same)."""
    try:
        candidates = [p for kind in INDEX_KINDS for p in folder.glob(f"{kind}-*")
                      if p.suffix in (".annoy", ".npy", ".json") or ".tmp-" in p.name]
    except OSError:
        return []
    return _unlink(candidates)


def _unlink(paths: list[Path]) -> list[Path]:
    """Delete ``paths``, skipping those that cannot be; returns those deleted."""
    removed = []
    for path in paths:
        try:
            path.unlink()
            removed.append(path)
        except OSError:
            pass
    return removed


def remove_stale_temporaries(files: IndexFiles) -> list[Path]:
    """Delete the temporary files of builds whose process is gone (killed
    before it could clean up). Returns the files removed."""
    try:
        candidates = list(files.folder.glob(f"{files.stem}*.tmp-*"))
    except OSError:
        return []
    stale = []
    for path in candidates:
        m = _TMP.search(path.name)
        if m is not None and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            stale.append(path)
    return _unlink(stale)


def build_index(files: IndexFiles, block: VectorBlock, *, n_trees: int, proj_dim: int = 64,
                shards: int = 1, seed: int = 1, n_jobs: int = -1, erasures: int = 0,
                progress: Callable[[str, int, int], None] | None = None) -> Manifest:
    """Build the index of ``block`` (all stored vectors up to its last row id),
    as ``shards`` forests of ``n_trees`` trees each, and move it into place
    atomically. Raises OSError when the folder cannot be written; half-built
    temporary files are removed."""
    files.folder.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(files)
    dim = int(block.vectors.shape[1])
    n = len(block)
    shards = max(1, min(shards, n))
    names = parts(shards)
    tag = f".tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp = {p: files.part(p).with_name(files.part(p).name + tag) for p in names}
    tmp_manifest = files.manifest.with_name(files.manifest.name + tag)
    started = time.perf_counter()
    proj = projection(block.vectors, proj_dim, seed)
    pdim = int(proj.shape[1])
    bounds = shard_bounds(n, shards)
    try:
        for s in range(shards):
            annoy = AnnoyIndex(pdim, METRIC)
            annoy.set_seed(seed + s)
            annoy.on_disk_build(str(tmp[f"annoy{s}" if s else "annoy"]))
            first, end = bounds[s], bounds[s + 1]
            label = f" (shard {s + 1} of {shards})" if shards > 1 else ""
            step = 10_000
            for start in range(first, end, step):
                # before build: the only time add_item is ever called
                rows = (block.vectors[start:min(end, start + step)] @ proj).tolist()
                for pos, row in enumerate(rows, start - first):
                    annoy.add_item(pos, row)
                if progress is not None:
                    progress("indexing" + label, min(end, start + step) - first, end - first)
            if progress is not None:
                progress("building trees" + label, 0, n_trees)
            annoy.build(n_trees, n_jobs=n_jobs)
            annoy.unload()
            if progress is not None:
                progress("building trees" + label, n_trees, n_trees)
        for part, array in (("ids", block.item_ids.astype(np.int64)),
                            ("vec", np.ascontiguousarray(block.vectors, dtype=np.float32)),
                            ("proj", proj)):
            with tmp[part].open("wb") as f:
                np.save(f, array, allow_pickle=False)
        for path in tmp.values():
            _fsync(path)
        manifest = Manifest(
            format=FORMAT, kind=files.kind, embedder=files.embedder,
            embedder_version=files.embedder_version, dim=dim, proj_dim=pdim, items=n,
            max_row_id=block.last_row, n_trees=n_trees, shards=shards,
            metric=METRIC,
            built_at=time.time(), build_seconds=round(time.perf_counter() - started, 3),
            files={p: {"size": tmp[p].stat().st_size, "checksum": file_checksum(tmp[p])}
                   for p in names},
            erasures=erasures,
        )
        tmp_manifest.write_text(json.dumps(manifest.to_dict(), indent=1), encoding="utf-8")
        _fsync(tmp_manifest)
        for part in names:
            point("index.rename")
            os.replace(tmp[part], files.part(part))
        point("index.rename")
        os.replace(tmp_manifest, files.manifest)
        stale = shards
        while files.part(f"annoy{stale}").exists():  # forests of an earlier build with more shards
            files.part(f"annoy{stale}").unlink()
            stale += 1
        return manifest
    finally:
        for path in (*tmp.values(), tmp_manifest):
            try:
                path.unlink()
            except FileNotFoundError:
                pass
