"""The REST routes, one module per concern, each an APIRouter the app includes."""
