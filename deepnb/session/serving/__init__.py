"""An agent served: ``deepnb.deploy`` writes an Agent Server app, ``deepnb.serve`` runs it with
``langgraph dev``, never writing through a link."""
