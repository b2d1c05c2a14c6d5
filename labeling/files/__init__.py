"""Files in and out of a workspace: formats (readers and writers), importers, exporters, uploads
and downloads for the app, the BM25 baseline run and the demo workspace."""
