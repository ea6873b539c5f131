"""Build and render photoreal scenes in Blender (Cycles on the CPU).

Runs only under Blender's Python module (the optional extra ``render``, in its
own ``.venv-render``: ``make render-env``), never in the project's venv:

    .venv-render/bin/python -m datasets.photoreal.blender_scene JOBS.json

``JOBS.json`` is a list of render jobs written by ``datasets.photoreal.generate``
(millimetres, sRGB colours, texture paths); each job's picture is written to its
``output`` path as an 8-bit PNG. A sprite job (``matte_output`` set) renders
its objects with a transparent film over a table that only catches their shadow
(``output``: RGBA, the shadow in the alpha), then again without the table
(``matte_output``: the objects' own matte). This module reads nothing but that JSON, so it
imports only the standard library, ``bpy`` and ``mathutils``.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import bpy
from mathutils import Matrix, Vector

MM = 0.001  # Blender works in metres

Job = dict[str, Any]


def _srgb_to_linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _rgba(rgb: list[float]) -> tuple[float, float, float, float]:
    r, g, b = (_srgb_to_linear(float(v)) for v in rgb)
    return (r, g, b, 1.0)


def _link(obj: Any) -> Any:
    bpy.context.scene.collection.objects.link(obj)
    return obj


def _material(name: str, rgb: list[float], roughness: float, **inputs: float) -> Any:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = _rgba(rgb)
    bsdf.inputs["Roughness"].default_value = roughness
    for key, value in inputs.items():
        bsdf.inputs[key.replace("_", " ")].default_value = value
    return mat


def _mesh_object(name: str, bm: Any, material: Any) -> Any:
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(material)
    return _link(bpy.data.objects.new(name, mesh))


def _prism(name: str, corners: list[list[float]], z0: float, z1: float, material: Any,
           bevel: float = 0.0) -> Any:
    """A block standing on footprint ``corners`` (mm) from ``z0`` to ``z1`` (mm)."""
    mesh = bpy.data.meshes.new(name)
    n = len(corners)
    verts = [(x * MM, y * MM, z0 * MM) for x, y in corners] + [
        (x * MM, y * MM, z1 * MM) for x, y in corners]
    # outward faces whichever way the footprint turns
    ccw = sum(corners[i][0] * corners[(i + 1) % n][1] - corners[(i + 1) % n][0] * corners[i][1]
              for i in range(n)) > 0
    order = list(range(n)) if ccw else list(range(n))[::-1]
    faces = [[n + i for i in order], [i for i in order[::-1]]]
    faces += [[order[i], order[(i + 1) % n], n + order[(i + 1) % n], n + order[i]]
              for i in range(n)]
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    mesh.materials.append(material)
    obj = _link(bpy.data.objects.new(name, mesh))
    if bevel > 0:
        mod = obj.modifiers.new("bevel", "BEVEL")
        mod.width = bevel * MM
        mod.segments = 3
        mod.limit_method = "ANGLE"
    return obj


def _new_bmesh() -> Any:
    import bmesh  # only importable once bpy is

    return bmesh


def _cylinder(name: str, centre: list[float], radius: float, depth: float, material: Any,
              top_radius: float | None = None, segments: int = 32) -> Any:
    bmesh = _new_bmesh()
    bm = bmesh.new()
    bmesh.ops.create_cone(bm, cap_ends=True, segments=segments, radius1=radius * MM,
                          radius2=(radius if top_radius is None else top_radius) * MM,
                          depth=depth * MM)
    obj = _mesh_object(name, bm, material)
    obj.location = (centre[0] * MM, centre[1] * MM, centre[2] * MM)
    return obj


def _sphere(name: str, centre: list[float], radius: float, material: Any,
            squash: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> Any:
    bmesh = _new_bmesh()
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=24, v_segments=12, radius=radius * MM)
    obj = _mesh_object(name, bm, material)
    obj.location = (centre[0] * MM, centre[1] * MM, centre[2] * MM)
    obj.scale = squash
    for poly in obj.data.polygons:
        poly.use_smooth = True
    return obj


def _image_node(nodes: Any, path: str, data: bool = False) -> Any:
    node = nodes.new("ShaderNodeTexImage")
    node.image = bpy.data.images.load(path)
    if data:
        node.image.colorspace_settings.name = "Non-Color"
    node.interpolation = "Cubic"
    return node


def _face_material(name: str, job: Job, face: str, height: str) -> Any:
    style = job["style"]
    mat = _material(name, style["body"], style["roughness"], Coat_Weight=0.3)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    colour = _image_node(nodes, face)
    links.new(colour.outputs["Color"], bsdf.inputs["Base Color"])
    bump = nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = 0.8
    bump.inputs["Distance"].default_value = style["pip_depth"] * MM
    links.new(_image_node(nodes, height, data=True).outputs["Color"], bump.inputs["Height"])
    links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return mat


def _decal(name: str, corners: list[list[float]], z: float, inset: float, material: Any) -> Any:
    """The face: a quad just above the top, inset from the bevelled edge, UV-mapped in the
    tile's frame (``u`` along from the near end, ``v`` across)."""
    c = [Vector((x, y, 0.0)) for x, y in corners]
    along, across = c[3] - c[0], c[1] - c[0]
    fu, fv = inset / along.length, inset / across.length
    uv = [(fu, fv), (fu, 1 - fv), (1 - fu, 1 - fv), (1 - fu, fv)]
    verts = [tuple((c[0] + u * along + v * across) * MM + Vector((0, 0, z * MM))) for u, v in uv]
    mesh = bpy.data.meshes.new(name)
    area = along.x * across.y - along.y * across.x
    face = [0, 3, 2, 1] if area > 0 else [0, 1, 2, 3]
    mesh.from_pydata(verts, [], [face])
    layer = mesh.uv_layers.new()
    for loop, vi in zip(mesh.polygons[0].loop_indices, face, strict=True):
        u, v = uv[vi]
        layer.data[loop].uv = (u, 1 - v)
    mesh.materials.append(material)
    return _link(bpy.data.objects.new(name, mesh))


def _tiles(job: Job) -> None:
    style = job["style"]
    thick = style["thickness_mm"]
    body = _material("body", style["body"], style["roughness"], Coat_Weight=0.3)
    brass = _material("spinner", [0.85, 0.65, 0.3], 0.25, Metallic=1.0)
    for i, tile in enumerate(job["tiles"]):
        corners = tile["corners"]
        _prism(f"tile{i}", corners, 0.0, thick, body, bevel=1.3)
        if tile["face_down"]:
            continue
        face = _face_material(f"face{i}", job, tile["face"], tile["height"])
        _decal(f"decal{i}", corners, thick + 0.01, 1.1, face)
        if style["spinner"]:
            cx = sum(p[0] for p in corners) / 4
            cy = sum(p[1] for p in corners) / 4
            _cylinder(f"spin{i}", [cx, cy, thick + 0.3], 1.6, 0.6, brass, segments=16)


def _markers(job: Job) -> None:
    for i, m in enumerate(job["markers"]):
        cx = sum(p[0] for p in m["corners"]) / 4
        cy = sum(p[1] for p in m["corners"]) / 4
        c0, c1, c2 = m["corners"][:3]
        angle = math.atan2(c1[1] - c0[1], c1[0] - c0[0])
        if m["kind"] == "coin":
            metal = _material(f"coin{i}", [0.8, 0.62, 0.3], 0.3, Metallic=1.0)
            _cylinder(f"coin{i}", [cx, cy, 1.0], 11.5, 2.0, metal)
        elif m["kind"] == "block":  # a wooden cube, as some tables mark trains with
            wood = _material(f"block{i}", m["colour"], 0.55)
            _prism(f"block{i}", m["corners"], 0.0, 14.0, wood, bevel=1.0)
        elif m["kind"] == "pawn":
            plastic = _material(f"pawn{i}", m["colour"], 0.35)
            _cylinder(f"pawn{i}", [cx, cy, 9.0], 8.5, 18.0, plastic, top_radius=3.5)
            _sphere(f"pawnhead{i}", [cx, cy, 21.0], 5.0, plastic)
        else:
            plastic = _material(f"train{i}", m["colour"], 0.4)
            length = math.dist(c1, c0)
            width = math.dist(c2, c1)
            body = _prism(f"train{i}", m["corners"], 0.0, 14.0, plastic, bevel=2.0)
            body.name = f"train{i}"
            _cylinder(f"chimney{i}", [cx + 0.3 * (c1[0] - c0[0]) * (length > width),
                                      cy + 0.3 * (c1[1] - c0[1]) * (length > width), 17.0],
                      3.0, 8.0, plastic)
            del angle


def _mat_sheet(job: Job) -> None:
    sheet = job.get("mat")
    if not sheet:
        return
    paper = _material("mat", [1.0, 1.0, 1.0], 0.85, Specular_IOR_Level=0.25)
    nodes, links = paper.node_tree.nodes, paper.node_tree.links
    links.new(_image_node(nodes, sheet["image"]).outputs["Color"],
              nodes["Principled BSDF"].inputs["Base Color"])
    corners = sheet["corners"]  # mat (-h,-h), (h,-h), (h,h), (-h,h) in world mm
    mesh = bpy.data.meshes.new("mat")
    verts = [(x * MM, y * MM, 0.25 * MM) for x, y in corners]
    mesh.from_pydata(verts, [], [[0, 1, 2, 3]])
    layer = mesh.uv_layers.new()
    uvs = [(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]
    for loop, vi in zip(mesh.polygons[0].loop_indices, mesh.polygons[0].vertices, strict=True):
        layer.data[loop].uv = uvs[vi]
    mesh.materials.append(paper)
    _link(bpy.data.objects.new("mat", mesh))


def _surface(job: Job) -> None:
    s = job["surface"]
    mat = _material("surface", s["base"], s["roughness"])
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    coords = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Rotation"].default_value = (0.0, 0.0, s["angle"])
    if s["kind"] == "wood":  # long grain: the bands stretch along the boards
        mapping.inputs["Scale"].default_value = (1.0, 0.12, 1.0)
    links.new(coords.outputs["Object"], mapping.inputs["Vector"])
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = _rgba(s["base"])
    ramp.color_ramp.elements[1].color = _rgba(s["accent"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    pattern = _pattern(nodes, ramp, s)
    links.new(mapping.outputs["Vector"], pattern.inputs["Vector"])
    links.new(pattern.outputs[0 if s["kind"] != "checked" else 1], ramp.inputs["Fac"])
    grain = nodes.new("ShaderNodeTexNoise")
    grain.inputs["Scale"].default_value = {"felt": 900.0, "leather": 250.0}.get(s["kind"], 400.0)
    links.new(mapping.outputs["Vector"], grain.inputs["Vector"])
    bump = nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = {"felt": 0.5, "leather": 0.35, "glass": 0.0,
                                             "wood": 0.05}.get(s["kind"], 0.25)
    links.new(grain.outputs["Fac"], bump.inputs["Height"])
    links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    half = 3000
    _prism("table", [[-half, -half], [half, -half], [half, half], [-half, half]], -20.0, 0.0, mat)


def _pattern(nodes: Any, ramp: Any, s: Job) -> Any:
    kind, scale = s["kind"], s["scale"]
    if kind == "wood":
        node = nodes.new("ShaderNodeTexWave")
        node.inputs["Scale"].default_value = 4.0 * scale
        node.inputs["Distortion"].default_value = 2.0
        node.inputs["Detail"].default_value = 4.0
        node.inputs["Detail Scale"].default_value = 0.6
        node.inputs["Detail Roughness"].default_value = 0.7
        return node
    if kind == "checked":
        node = nodes.new("ShaderNodeTexChecker")
        node.inputs["Scale"].default_value = 22.0 * scale
        node.inputs["Color1"].default_value = (1, 1, 1, 1)
        node.inputs["Color2"].default_value = (0, 0, 0, 1)
        ramp.color_ramp.elements[0].color = _rgba(s["accent"])
        ramp.color_ramp.elements[1].color = _rgba(s["base"])
        return node
    if kind == "striped":
        node = nodes.new("ShaderNodeTexWave")
        node.inputs["Scale"].default_value = 12.0 * scale
        node.inputs["Distortion"].default_value = 0.0
        ramp.color_ramp.interpolation = "CONSTANT"
        ramp.color_ramp.elements[1].position = 0.6
        return node
    if kind in ("floral", "leather"):
        node = nodes.new("ShaderNodeTexVoronoi")
        node.inputs["Scale"].default_value = (18.0 if kind == "floral" else 160.0) * scale
        if kind == "floral":
            ramp.color_ramp.elements[0].color = _rgba(s["accent"])
            ramp.color_ramp.elements[1].color = _rgba(s["base"])
            ramp.color_ramp.elements[0].position = 0.18
            ramp.color_ramp.elements[1].position = 0.26
        return node
    node = nodes.new("ShaderNodeTexNoise")  # felt, glass: a faint mottle
    node.inputs["Scale"].default_value = 30.0 * scale
    return node


def _props(job: Job) -> None:
    for i, p in enumerate(job["props"]):
        cx, cy = p["centre"]
        if p["kind"] == "mug":
            r, height = p["size"]
            ceramic = _material(f"mug{i}", p["colour"], 0.15, Coat_Weight=0.5)
            _cylinder(f"mug{i}", [cx, cy, height / 2], r, height, ceramic)
            coffee = _material(f"coffee{i}", [0.12, 0.06, 0.03], 0.05)
            _cylinder(f"coffee{i}", [cx, cy, height + 0.2], r - 4, 0.2, coffee)
            hx, hy = cx + (r + 8) * math.cos(p["angle"]), cy + (r + 8) * math.sin(p["angle"])
            _sphere(f"handle{i}", [hx, hy, height / 2], 14.0, ceramic, (0.5, 0.5, 2.2))
        else:
            length, width, thick = p["size"]
            a = p["angle"]
            d = (math.cos(a) * length / 2, math.sin(a) * length / 2)
            q = (-math.sin(a) * width / 2, math.cos(a) * width / 2)
            foot = [[cx - d[0] - q[0], cy - d[1] - q[1]], [cx - d[0] + q[0], cy - d[1] + q[1]],
                    [cx + d[0] + q[0], cy + d[1] + q[1]], [cx + d[0] - q[0], cy + d[1] - q[1]]]
            case = _material(f"phone{i}", p["colour"], 0.4)
            _prism(f"phone{i}", foot, 0.0, thick, case, bevel=3.0)
            glass = _material(f"screen{i}", [0.02, 0.02, 0.03], 0.03, Coat_Weight=1.0)
            inner = [[cx + (x - cx) * 0.92, cy + (y - cy) * 0.88] for x, y in foot]
            _prism(f"screen{i}", inner, thick, thick + 0.3, glass)


def _arms(job: Job) -> None:
    for i, arm in enumerate(job["arms"]):
        a, b = Vector(arm["start"]), Vector(arm["end"])
        skin = _material(f"skin{i}", arm["skin"], 0.45, Subsurface_Weight=0.2)
        sleeve = _material(f"sleeve{i}", arm["sleeve"], 0.9)
        r = arm["radius"]
        for name, p0, p1, radius, mat in (("forearm", a, b, r, skin),
                                          ("sleeve", a, a.lerp(b, 0.45), r * 1.35, sleeve)):
            axis = p1 - p0
            obj = _cylinder(f"{name}{i}", list((p0 + p1) / 2), radius, axis.length, mat,
                            top_radius=radius * 0.85)
            obj.rotation_mode = "QUATERNION"
            obj.rotation_quaternion = axis.to_track_quat("Z", "Y")
            for poly in obj.data.polygons:
                poly.use_smooth = True
        _sphere(f"fist{i}", list(b), r * 1.25, skin, (1.25, 1.0, 0.8))


def _lights(job: Job) -> None:
    light = job["lighting"]
    key = 9.0 * light["power"]
    pos = Vector(light["position"]) * MM
    target = Vector((*job["look_at"], 0.0)) * MM
    aim = (target - pos).to_track_quat("-Z", "Y")
    if light["kind"] == "daylight":
        data = bpy.data.lights.new("sun", "SUN")
        data.energy = key
        data.angle = 0.12
    else:
        data = bpy.data.lights.new("lamp", "AREA")
        data.shape = "DISK" if light["kind"] == "lamp" else "SQUARE"
        data.size = light["size_mm"] * MM
        data.energy = key * math.pi * (target - pos).length ** 2 * 1.2
    data.color = _rgba(light["colour"])[:3]
    obj = _link(bpy.data.objects.new("light", data))
    obj.location = pos
    obj.rotation_mode = "QUATERNION"
    obj.rotation_quaternion = aim
    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = _rgba(light["ambient_colour"])
    bg.inputs["Strength"].default_value = key * light["ambient"] / math.pi
    bpy.context.scene.world = world


def _camera(job: Job) -> None:
    cam = job["camera"]
    data = bpy.data.cameras.new("webcam")
    data.sensor_fit = "HORIZONTAL"
    data.sensor_width = 36.0
    data.lens = cam["lens"]
    data.clip_start = 0.01
    data.clip_end = 50.0
    obj = _link(bpy.data.objects.new("webcam", data))
    obj.matrix_world = Matrix(cam["matrix_world"])
    bpy.context.scene.camera = obj


def _settings(job: Job) -> None:
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = int(job["samples"])
    scene.cycles.use_denoising = True
    scene.cycles.denoiser = "OPENIMAGEDENOISE"
    scene.cycles.max_bounces = 4
    scene.cycles.diffuse_bounces = 2
    scene.cycles.glossy_bounces = 2
    scene.cycles.transmission_bounces = 2
    scene.cycles.caustics_reflective = False
    scene.cycles.caustics_refractive = False
    scene.cycles.seed = int(job.get("noise_seed", 0))
    scene.render.threads_mode = "FIXED"
    scene.render.threads = int(job.get("threads", 2))
    scene.render.resolution_x, scene.render.resolution_y = job["canvas"]
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_depth = "8"
    scene.view_settings.view_transform = "AgX"
    scene.view_settings.exposure = float(job.get("exposure", 0.0))


def render_job(job: Job) -> None:
    """Build ``job``'s scene from scratch and write its picture to ``job["output"]``."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    _settings(job)
    _camera(job)
    _lights(job)
    _surface(job)
    _mat_sheet(job)
    _tiles(job)
    _markers(job)
    _props(job)
    _arms(job)
    scene = bpy.context.scene
    if job.get("matte_output"):
        scene.render.film_transparent = True
        scene.render.image_settings.color_mode = "RGBA"
        bpy.data.objects["table"].is_shadow_catcher = True
    scene.render.filepath = job["output"]
    bpy.ops.render.render(write_still=True)
    if job.get("matte_output"):  # the objects alone: their matte, without the shadow
        bpy.data.objects["table"].hide_render = True
        scene.cycles.use_denoising = False
        scene.render.filepath = job["matte_output"]
        bpy.ops.render.render(write_still=True)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m datasets.photoreal.blender_scene JOBS.json", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        jobs = json.load(f)
    for job in jobs:
        render_job(job)
        print(f"rendered {job['output']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
