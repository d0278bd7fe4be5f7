"""Recall (docs/DESIGN.md §4): hybrid, explainable search over memories and raw turns.

    from memdesk import Store
    from memdesk.recall import Recaller
    with Store.open("memdesk.db") as store:
        recaller = Recaller(store)                 # embedder "use" by default
        for hit in recaller.search("where does alice live now", k=5):
            print(hit.kind, hit.status, round(hit.score, 3), hit.text)

Modules: ``embedders`` (the Embedder protocol and the bundled models),
``vectors`` (vectors in the database), ``annoy_index`` (index files and their
manifest), ``collection`` (index lifecycle: tail, rebuilds, exact mode),
``lexical`` (character n-grams for names and numbers), ``bm25`` (the word
channel), ``fusion``, ``intent`` (predicates and subjects a query names),
``scope``, ``scoring`` (the score and its weights), ``hits`` (a result and the
prompt block), ``service`` (the Recaller, orchestrating one search through
``filters``, ``reads``, ``nearest``, ``turns``, ``hydrate``, ``results``,
``collapse``, ``told``, ``structured``, ``embedding``; ``probe`` is one search
as they see it, ``folders`` where the index files live). Every SQL statement
recall runs is ``memdesk.db.recall``'s. How text is folded and cut into grams,
stop words, times and what a question asks come from the language layer,
``memdesk.lang``.
"""

from .annoy_index import Manifest, file_checksum, remove_index_files
from .collection import IndexReport, IndexSettings
from .embedders import (
    DEFAULT_EMBEDDER,
    EMBEDDERS,
    ConcatEmbedder,
    E5Embedder,
    Embedder,
    UseEmbedder,
    embedder_key,
    make_embedder,
)
from .hits import HitSource as HitSource  # kept importable (records.Source), not in __all__
from .hits import RecallHit
from .scoring import RecallWeights
from .service import (
    Comparison,
    Recaller,
    default_index_dir,
    index_folder,
)

__all__ = [
    "Comparison", "ConcatEmbedder", "DEFAULT_EMBEDDER", "E5Embedder", "EMBEDDERS", "Embedder",
    "IndexReport", "IndexSettings", "Manifest", "RecallHit", "RecallWeights",
    "Recaller", "UseEmbedder", "default_index_dir", "embedder_key", "file_checksum",
    "index_folder", "make_embedder", "remove_index_files",
]
