"""Views: widgets that show runs live, and static HTML/text snapshots of them."""
