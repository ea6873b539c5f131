"""An image -> ``Detections``: the ONNX models, which export each runs, the crops
they see, and the tile detector that drops boxes unlike a domino."""
