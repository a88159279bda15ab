"""What prompt assembly calls each turn: tier dispatch and the rendered blocks.
Depends on `lanes` and `substrate`."""
