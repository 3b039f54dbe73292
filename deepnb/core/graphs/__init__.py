"""Reading a LangGraph graph: what it takes and gives, its middleware and tools, its messages,
structured output, and the stream of its chunks."""
