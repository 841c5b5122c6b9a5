"""What players read and see: the message catalogues (en, fr, uk), the presenter that turns a
game's view into text and embeds, and the board pictures."""
