"""Teaching the measures: the metric guide (which measure and k for which failure) and the
simulator that scores a hand-made ranked list under both conventions of the seed documents."""

from labeling.lazy_names import facade

# The public names the app's pages import; each module is imported on first use.
__getattr__, __all__ = facade(__name__, {
    "guide": "labeling.teaching.guide",
    "simulator": "labeling.teaching.simulator",
})
