"""Discord components: the game's persistent buttons and the rows they are laid out in."""
