"""Labels that survive re-chunking: judgments anchored to the document text they describe.

Modules: ``splitter`` (a recursive character splitter with offsets), ``overlap`` (vectorised
interval overlap), ``alignment`` (spans carried across document versions), ``mapping`` (which
old chunks overlap which new ones, and by how much), ``plan`` (which labels carry over, pure),
``transfer`` (reading and writing a transfer), ``report`` (what a transfer did),
``suggestions`` (the pairs sent to the experts).
"""

from labeling.lazy_names import facade

# The public names the app's pages import; each module is imported on first use.
__getattr__, __all__ = facade(__name__, {
    "plan": "labeling.rechunking.plan",
    "report": "labeling.rechunking.report",
    "splitter": "labeling.rechunking.splitter",
    "suggestions": "labeling.rechunking.suggestions",
    "transfer": "labeling.rechunking.transfer",
})
