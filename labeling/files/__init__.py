"""Files in and out of a workspace: formats (readers and writers), importers, exporters, uploads
and downloads for the app, the BM25 baseline run and the demo workspace."""

from labeling.lazy_names import facade

# The public names the app's pages import; each module is imported on first use.
__getattr__, __all__ = facade(__name__, {
    "baseline": "labeling.files.baseline",
    "chunk_uploads": "labeling.files.chunk_uploads",
    "demo": "labeling.files.demo",
    "exporters": "labeling.files.exporters",
    "live_runs": "labeling.files.live_runs",
    "uploads": "labeling.files.uploads",
})
