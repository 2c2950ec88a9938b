"""The series viewset's actions, one mixin per concern; ``viewsets.SeriesViewSet`` composes them."""
