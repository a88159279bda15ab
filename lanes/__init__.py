"""v3 lane selection over the PageIndex and the collection (entity, hot, fresh,
core, sim, learned edges). Depends only on `substrate`."""
