"""The REST API (Django REST framework). Imported only from the host's URLconf."""
