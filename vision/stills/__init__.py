"""A photo -> a table or a hand: end-of-round hands, a slanted photo seen from
above, a table looked at closer where it breaks, readings drawn."""
