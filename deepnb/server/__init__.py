"""deepnb's Jupyter Server pieces: notebooks saved through Jupyter Server keep deepnb's views as
snapshots (:mod:`.extension`, enabled by ``jupyter-config/``, installed with the package); with
jupyter-collaboration, a kernel that ends leaves its shared notebooks' views as snapshots
(:mod:`.shared_notebooks`); :mod:`.views` tells a deepnb view output, for both. They import no
other layer of deepnb.
"""
