"""The Discord edge: the client, slash commands, game buttons and the handlers that turn
interactions into service calls and the service's views into messages."""
