"""Teaching the measures: the metric guide (which measure and k for which failure) and the
simulator that scores a hand-made ranked list under both conventions of the seed documents."""
