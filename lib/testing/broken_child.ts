// A sandbox child whose module fails while loading, before it can say `ready`.

throw new Error("broken child failed while loading");
